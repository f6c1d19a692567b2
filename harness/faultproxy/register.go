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
	toxics.Register(redisWatchToxicType, new(filterToxic[lostReply, redisWatchKind]))
	toxics.Register(redisDropToxicType, new(filterToxic[lostReply, redisDropKind]))
	toxics.Register(mysqlWatchToxicType, new(filterToxic[lostReply, mysqlWatchKind]))
	toxics.Register(mysqlDropToxicType, new(filterToxic[lostReply, mysqlDropKind]))
	toxics.Register(redisRefuseToxicType, new(filterToxic[queueError, redisRefuseKind]))
	toxics.Register(redisRewriteToxicType, new(filterToxic[queueError, redisRewriteKind]))
	toxics.Register(commitHoldToxicType, new(filterToxic[commitHold, commitHoldKind]))
	toxics.Register(mysqlRefuseToxicType, new(filterToxic[sqlError, mysqlRefuseKind]))
	toxics.Register(mysqlAnswerToxicType, new(filterToxic[sqlError, mysqlAnswerKind]))
	toxics.Register(pgDropToxicType, new(filterToxic[lostReply, pgDropKind]))
	toxics.Register(pgCommitHoldToxicType, new(pgFilterToxic[commitHold, pgCommitHoldKind]))
	toxics.Register(pgRefuseToxicType, new(pgFilterToxic[sqlError, pgRefuseKind]))
	toxics.Register(pgStatementsToxicType, new(filterToxic[pgStatements, pgStatementsKind]))
	toxics.Register(pgAnswerToxicType, new(filterToxic[sqlError, pgAnswerKind]))
	toxics.Register(halfOpenToxicType, new(halfOpenToxic))
	toxics.Register(redisCommandsToxicType, new(filterToxic[redisLinkLog, redisCommandsKind]))
	toxics.Register(redisRepliesToxicType, new(filterToxic[redisLinkLog, redisRepliesKind]))
	toxics.Register(mysqlStatementsToxicType, new(filterToxic[mysqlLinkLog, mysqlStatementsKind]))
	toxics.Register(mysqlResultsToxicType, new(filterToxic[mysqlLinkLog, mysqlResultsKind]))
	toxics.Register(pgFailuresToxicType, new(filterToxic[pgLinkLog, pgFailuresKind]))
	toxics.Register(pgRepliesToxicType, new(filterToxic[pgLinkLog, pgRepliesKind]))
}

// Compile-time checks of the optional toxic capabilities toxiproxy looks
// for by type assertion.
var (
	_ toxics.BufferedToxic = (*jitterToxic)(nil)
	_ toxics.StatefulToxic = (*filterToxic[lostReply, redisWatchKind])(nil)
	_ toxics.CleanupToxic  = (*filterToxic[lostReply, redisWatchKind])(nil)
	_ toxics.StatefulToxic = (*pgFilterToxic[sqlError, pgRefuseKind])(nil)
	_ toxics.CleanupToxic  = (*pgFilterToxic[sqlError, pgRefuseKind])(nil)
	_ toxics.Toxic         = (*seededSlicer)(nil)
	_ toxics.StatefulToxic = (*halfOpenToxic)(nil)
	_ toxics.CleanupToxic  = (*halfOpenToxic)(nil)
)
