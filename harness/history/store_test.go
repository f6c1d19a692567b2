package history

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWriteLoadRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 123456000, time.UTC)
	until := at.Add(2 * time.Second)
	run := Run{
		Meta: Meta{Scenario: "baseline", Seed: 7, Prefix: "bull", Queues: []string{"q"},
			Tuning: Tuning{Lease: Duration(2 * time.Second), MaxAttempts: 5}, Started: at,
			Conventions: Conventions{ReleaseErrors: []string{"released:"}, RecoveryKeepsError: true, RecoveryBound: Duration(9 * time.Second)},
			Commands:    true},
		Events:      []Event{{ID: 2, Type: "ai.job.enqueue", JobID: "j-2", Kind: KindValid, Produced: at}, {ID: 1, JobID: "j-1", Produced: at}},
		Transitions: []Transition{{Seq: 1, Table: TableOutbox, Key: "1", At: at, NewStatus: StatusProcessing, LockedUntil: &until}},
		Stream:      []StreamEntry{{Queue: "q", ID: "1-0", At: at, Event: "added", JobID: "j-1"}},
		Keys:        []KeyNote{{Queue: "q", JobID: "j-1", Event: "new", Stamp: "1", At: at}},
		Faults:      []Fault{{ID: 1, Kind: "kill", Target: "d1", Start: at, End: until}},
		Commands: []Command{{Slot: "d2", Name: "LPUSH", Sent: until, Outcome: CommandClosed, Replied: until, Write: true},
			{Slot: "d2", Store: "mysql", Name: "UPDATE", Sent: until, Outcome: CommandError, Reply: "1213 Deadlock found", Replied: until, Write: true},
			{Slot: "d1", Name: "EVALSHA", Jobs: []string{"j-1"}, Write: true, Sent: at, Outcome: CommandError, Reply: "ERR broken", Replied: until}},
		Final: Final{At: until, Outbox: []OutboxRow{{ID: 1, Status: StatusPublished}}},
	}
	dir := t.TempDir()
	require.NoError(t, Write(dir, run))
	got, err := Load(dir)
	require.NoError(t, err)
	run.Sort() // Load returns every slice in order
	require.Equal(t, run.Meta, got.Meta)
	require.Equal(t, run.Events, got.Events)
	require.Equal(t, int64(1), got.Events[0].ID)
	require.Equal(t, run.Transitions, got.Transitions)
	require.Equal(t, run.Stream, got.Stream)
	require.Equal(t, run.Keys, got.Keys)
	require.Equal(t, run.Faults, got.Faults)
	require.Equal(t, run.Commands, got.Commands)
	require.Equal(t, "EVALSHA", got.Commands[0].Name, "in order of sending")
	require.Equal(t, run.Final, got.Final)
}

func TestLoadNamesWhatIsWrong(t *testing.T) {
	_, err := Load(t.TempDir())
	require.ErrorContains(t, err, "meta.json")
	dir := t.TempDir()
	require.NoError(t, Write(dir, Run{}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte("{\"id\":1}\nnot json\n"), 0o644))
	_, err = Load(dir)
	require.ErrorContains(t, err, "events.jsonl line 2")
}

func TestDurationReadsTextAndNanoseconds(t *testing.T) {
	var d Duration
	require.NoError(t, d.UnmarshalJSON([]byte(`"150ms"`)))
	require.Equal(t, 150*time.Millisecond, d.D())
	require.NoError(t, d.UnmarshalJSON([]byte(`2000000000`)))
	require.Equal(t, 2*time.Second, d.D())
	require.ErrorContains(t, d.UnmarshalJSON([]byte(`"soon"`)), `duration "soon"`)
}

func TestConventionsDeclared(t *testing.T) {
	require.False(t, Conventions{}.Declared())
	require.False(t, Conventions{RecoveryBound: Duration(time.Second)}.Declared(), "a bound alone says nothing about returns")
	require.True(t, Conventions{ReleaseErrors: []string{"released:"}}.Declared())
	require.True(t, Conventions{RecoveryKeepsError: true}.Declared())
}
