package runner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/store"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

func TestNarrowStatementPerStore(t *testing.T) {
	got, err := narrowStatement(store.NameMySQL, "outbox_events", "last_error", 48)
	require.NoError(t, err)
	require.Equal(t, "ALTER TABLE `outbox_events` MODIFY `last_error` VARCHAR(48) NULL", got)
	got, err = narrowStatement(store.NamePostgres, "app.outbox", "err", 48)
	require.NoError(t, err)
	require.Equal(t, `ALTER TABLE "app"."outbox" ALTER COLUMN "err" TYPE VARCHAR(48)`, got)
	_, err = narrowStatement("sqlite", "t", "c", 48)
	require.ErrorContains(t, err, "cannot narrow")
}

func TestScenarioLastErrorWidthIsBounded(t *testing.T) {
	s := Scenario{Name: "x", Description: "x", Instances: 1, Events: 1, Mix: workload.Mix{Valid: 1}, Tuning: DefaultTuning(), LastErrorWidth: -1}
	require.ErrorContains(t, s.Validate(), "last_error width -1")
	s.LastErrorWidth = 2000
	require.ErrorContains(t, s.Validate(), "want 1..1024")
}

func TestFailureWriteNeedsALastErrorColumn(t *testing.T) {
	s := Scenario{Needs: []Needs{NeedLastError}}
	require.Empty(t, Missing(s, shapedAdapter{m: schema.Reference()}, nil))
	m := schema.Reference()
	m.Outbox.LastError = ""
	require.Contains(t, Missing(s, shapedAdapter{m: m}, nil), "maps no last_error column")
}
