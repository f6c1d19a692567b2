package faultproxy

import (
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
	zlog "github.com/rs/zerolog/log"
)

// toxiproxy finds toxic types in a process-wide registry; this package's
// own types are added to it once, when the package loads. toxiproxy's
// bandwidth toxic logs through zerolog's global logger at trace level on
// every interrupt; only its warnings are kept (nothing else in this module
// uses that logger).
func init() {
	zlog.Logger = zlog.Logger.Level(zerolog.WarnLevel)
	toxics.Register(jitterToxicType, new(jitterToxic))
	toxics.Register(slicerToxicType, new(seededSlicer))
	toxics.Register(redisWatchToxicType, new(redisWatchToxic))
	toxics.Register(redisDropToxicType, new(redisDropToxic))
	toxics.Register(mysqlWatchToxicType, new(mysqlWatchToxic))
	toxics.Register(mysqlDropToxicType, new(mysqlDropToxic))
	toxics.Register(redisRefuseToxicType, new(redisRefuseToxic))
	toxics.Register(redisRewriteToxicType, new(redisRewriteToxic))
	toxics.Register(commitHoldToxicType, new(commitHoldToxic))
	toxics.Register(mysqlRefuseToxicType, new(mysqlRefuseToxic))
	toxics.Register(mysqlAnswerToxicType, new(mysqlAnswerToxic))
}

// Compile-time checks of the optional toxic capabilities toxiproxy looks
// for by type assertion.
var (
	_ toxics.BufferedToxic = (*jitterToxic)(nil)
	_ toxics.StatefulToxic = (*redisWatchToxic)(nil)
	_ toxics.CleanupToxic  = (*redisWatchToxic)(nil)
	_ toxics.StatefulToxic = (*redisDropToxic)(nil)
	_ toxics.CleanupToxic  = (*redisDropToxic)(nil)
	_ toxics.StatefulToxic = (*mysqlWatchToxic)(nil)
	_ toxics.CleanupToxic  = (*mysqlWatchToxic)(nil)
	_ toxics.StatefulToxic = (*mysqlDropToxic)(nil)
	_ toxics.CleanupToxic  = (*mysqlDropToxic)(nil)
	_ toxics.StatefulToxic = (*redisRefuseToxic)(nil)
	_ toxics.CleanupToxic  = (*redisRefuseToxic)(nil)
	_ toxics.StatefulToxic = (*redisRewriteToxic)(nil)
	_ toxics.CleanupToxic  = (*redisRewriteToxic)(nil)
	_ toxics.StatefulToxic = (*commitHoldToxic)(nil)
	_ toxics.CleanupToxic  = (*commitHoldToxic)(nil)
	_ toxics.StatefulToxic = (*mysqlRefuseToxic)(nil)
	_ toxics.CleanupToxic  = (*mysqlRefuseToxic)(nil)
	_ toxics.StatefulToxic = (*mysqlAnswerToxic)(nil)
	_ toxics.CleanupToxic  = (*mysqlAnswerToxic)(nil)
	_ toxics.Toxic         = (*seededSlicer)(nil)
)
