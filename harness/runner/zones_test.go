package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestZonesValidateSaysWhatToFix(t *testing.T) {
	require.NoError(t, Zones{}.Validate())
	require.NoError(t, Zones{Server: "+07:00", Process: "America/New_York"}.Validate())
	require.ErrorContains(t, Zones{Server: "Asia/Bangkok", Process: "UTC"}.Validate(), "write a fixed offset such as +07:00")
	require.ErrorContains(t, Zones{Server: "+07:00"}.Validate(), "process time zone is empty")
	require.ErrorContains(t, Zones{Server: "+07:00", Process: "Nowhere/Atlantis"}.Validate(), "name a zone of the system's zone database")
	s := Scenario{Name: "z", Description: "d", Instances: 1, Events: 1, Tuning: DefaultTuning(), Zones: Zones{Server: "7"}}
	require.ErrorContains(t, s.Validate(), "scenario z: server time zone \"7\"")
}

func TestZonesAppliedRecordsBothOffsets(t *testing.T) {
	winter := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	z, err := zonesApplied(Zones{Server: "+07:00", Process: "America/New_York"}, "+07:00", "+07:00", winter)
	require.NoError(t, err)
	require.Equal(t, "-05:00", z.ProcessOffset)
	require.True(t, z.Differ())
	summer, err := processZone("America/New_York", time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	require.Equal(t, "-04:00", summer)
	require.Equal(t, "+05:30", formatOffset(5*3600+30*60))
	same, err := zonesApplied(Zones{Server: "+07:00", Process: "Asia/Bangkok"}, "+07:00", "+07:00", winter)
	require.NoError(t, err)
	require.False(t, same.Differ())
}
