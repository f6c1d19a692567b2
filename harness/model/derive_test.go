package model

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

type step struct{ key, op, old, new string }

func steps(ts []history.Transition) []step {
	var out []step
	for _, t := range ts {
		out = append(out, step{t.Key, t.Op, t.OldStatus, t.NewStatus})
	}
	return out
}

func predicateModel() schema.Mapping {
	return schema.Mapping{Outbox: schema.Outbox{Table: "o", ID: "id", Payload: "p", IDType: schema.KeyText},
		States: schema.States{Published: "done IS NOT NULL", Claimed: "lease > NOW()"}}
}

func TestDeriveRekeysAndChainsOldStatuses(t *testing.T) {
	events := []history.Event{{ID: 7, Row: "uuid-a"}}
	raw := []history.Transition{
		{Seq: 1, Table: history.TableOutbox, Key: "uuid-a", Op: "insert", At: at(0), NewStatus: "pending"},
		{Seq: 2, Table: history.TableOutbox, Key: "uuid-a", Op: "update", At: at(10), NewStatus: "processing"},
		{Seq: 3, Table: history.TableOutbox, Key: "uuid-a", Op: "update", At: at(20), NewStatus: "published"},
		{Seq: 4, Table: history.TableOutbox, Key: "stranger", Op: "insert", At: at(30), NewStatus: "pending"},
	}
	got, err := Derive(predicateModel(), events, raw)
	require.NoError(t, err)
	require.Equal(t, []step{{"7", "insert", "", "pending"}, {"7", "update", "pending", "processing"},
		{"7", "update", "processing", "published"}, {"stranger", "insert", "", "pending"}}, steps(got))
}

func TestDeriveLeavesStatusWordsAlone(t *testing.T) {
	m := schema.Mapping{Outbox: schema.Outbox{Table: "o", ID: "id", Payload: "p", Status: "s"}}
	raw := []history.Transition{{Seq: 1, Table: history.TableOutbox, Key: "1", Op: "update", OldStatus: "failed", NewStatus: "pending"}}
	got, err := Derive(m, nil, raw)
	require.NoError(t, err)
	require.Equal(t, []step{{"1", "update", "failed", "pending"}}, steps(got), "a status column's old word is the truth")
}

func TestDeriveDeadLetterWithoutDeleteFails(t *testing.T) {
	m := predicateModel()
	m.States.DeadLetter = &schema.DeadLetter{Table: "dlq", ID: "id"}
	raw := []history.Transition{
		{Seq: 1, Table: history.TableOutbox, Key: "9", Op: "insert", At: at(0), NewStatus: "pending"},
		{Seq: 2, Table: history.TableOutbox, Key: "9", Op: "update", At: at(5), NewStatus: "processing"},
		{Seq: 3, Table: history.TableDeadLetter, Key: "9", Op: "insert", At: at(9), Writer: "d1"},
	}
	got, err := Derive(m, nil, raw)
	require.NoError(t, err)
	require.Equal(t, step{"9", "update", "processing", "failed"}, steps(got)[2])
	require.Equal(t, "d1", got[2].Writer)
}

func cursorModel() schema.Mapping {
	return schema.Mapping{Outbox: schema.Outbox{Table: "m", ID: "offset", Payload: "p"},
		States: schema.States{Cursor: &schema.Cursor{Table: "offsets", Column: "acked", GroupColumn: "grp", Group: "g"}}}
}

func offsetWrite(seq int64, ms int, group string, acked any) history.Transition {
	img, _ := json.Marshal(map[string]any{"grp": group, "acked": acked})
	return history.Transition{Seq: seq, Table: history.TableCursor, Key: group, Op: "update", At: at(ms), Image: img, Writer: "d2"}
}

func TestDeriveCursorPassesCommittedIDsOnce(t *testing.T) {
	events := []history.Event{{ID: 1}, {ID: 2, Committing: at(500)}, {ID: 3}}
	raw := []history.Transition{
		{Seq: 1, Table: history.TableOutbox, Key: "1", Op: "insert", At: at(0), NewStatus: "pending"},
		{Seq: 2, Table: history.TableOutbox, Key: "2", Op: "insert", At: at(1), NewStatus: "pending"},
		{Seq: 3, Table: history.TableOutbox, Key: "3", Op: "insert", At: at(2), NewStatus: "pending"},
		offsetWrite(4, 100, "g", 3),   // passes 2 before its COMMIT: skipped for good
		offsetWrite(5, 200, "g", 2),   // a cursor moving back publishes nothing
		offsetWrite(6, 900, "g", "3"), // a string offset reads as its number
	}
	got, err := Derive(cursorModel(), events, raw)
	require.NoError(t, err)
	var outbox, cursor []history.Transition
	for _, tr := range got {
		if tr.Table == history.TableCursor {
			cursor = append(cursor, tr)
		} else {
			outbox = append(outbox, tr)
		}
	}
	require.Equal(t, []step{{"1", "insert", "", "pending"}, {"2", "insert", "", "pending"}, {"3", "insert", "", "pending"},
		{"1", "update", "pending", "published"}, {"3", "update", "pending", "published"}}, steps(outbox))
	require.Equal(t, "d2", outbox[3].Writer)
	require.Len(t, cursor, 3, "the group's records stay, with the offset each wrote")
	require.Equal(t, []int64{3, 2, 3}, []int64{cursor[0].Offset, cursor[1].Offset, cursor[2].Offset})
}

func TestDeriveRefusesWhatItCannotRead(t *testing.T) {
	_, err := Derive(cursorModel(), nil, []history.Transition{offsetWrite(1, 0, "g", "many")})
	require.ErrorContains(t, err, "offsets table offsets")
	_, err = Derive(cursorModel(), nil, []history.Transition{{Seq: 1, Table: "elsewhere"}})
	require.ErrorContains(t, err, "no model names")
}

func TestDeriveFinalReadsDeletionsAndCursors(t *testing.T) {
	m := predicateModel()
	m.States = schema.States{Deleted: schema.DeletedPublished, Claimed: "lease > NOW()"}
	events := []history.Event{{ID: 1, Row: "a", JobID: "j1"}, {ID: 2, Row: "b", JobID: "j2"}}
	derived := []history.Transition{{Table: history.TableOutbox, Key: "1", Op: "delete", NewStatus: "published"}}
	rows := []history.OutboxRow{{Row: "b", Status: "pending"}}
	final := DeriveFinal(m, events, derived, rows)
	require.Equal(t, []history.OutboxRow{{ID: 1, Row: "a", JobID: "j1", Status: "published"}, {ID: 2, Row: "b", Status: "pending"}}, final)

	c := cursorModel()
	final = DeriveFinal(c, []history.Event{{ID: 5}}, []history.Transition{{Table: history.TableOutbox, Key: "5", NewStatus: "published"}},
		[]history.OutboxRow{{ID: 5, Row: "5", Status: "pending"}})
	require.Equal(t, []history.OutboxRow{{ID: 5, Status: "published"}}, final)
}

func TestCapsSayWhatEachShapeLacks(t *testing.T) {
	require.Zero(t, Caps(referenceLike(), history.SinkBullMQ, history.DeliveryExactlyOnce), "the contract's shape lacks nothing")
	c := Caps(cursorModel(), history.SinkStream, history.DeliveryAtLeastOnce)
	require.Equal(t, history.FormCursor, c.Form)
	require.Equal(t, []string{history.LackAttempts, history.LackBackoff, history.LackClaims, history.LackFailed,
		history.LackJobs, history.LackLeases, history.LackPoison}, c.Lacks)
	p := predicateModel()
	p.Outbox.LockedUntil, p.Outbox.Attempts = "lease", "tries"
	c = Caps(p, "", "")
	require.True(t, c.Has(history.LackLeases) && c.Has(history.LackClaims) && c.Has(history.LackAttempts))
	require.False(t, c.Has(history.LackFailed))
}

func referenceLike() schema.Mapping {
	return schema.Mapping{
		Outbox: schema.Outbox{Table: "o", ID: "id", EventType: "t", AggregateID: "a", Payload: "p", Status: "s",
			Attempts: "n", AvailableAt: "av", LockedUntil: "lu"},
		Jobs: schema.Jobs{Table: "j", ID: "id", Queue: "q", Status: "s"},
	}
}
