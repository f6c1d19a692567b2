package model

import (
	"sort"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// Caps reads what the outbox m describes can express, for a dispatcher
// publishing to sink with the delivery promise delivery.
func Caps(m schema.Mapping, sink, delivery string) history.Model {
	out := history.Model{Form: form(m), Sink: sink, Delivery: delivery}
	lack := func(l string) { out.Lacks = append(out.Lacks, l) }
	o, st := m.Outbox, m.States
	claims := m.StatusWords() || st.Claimed != ""
	failed := m.StatusWords() || st.HasFailed()
	if !claims {
		lack(history.LackClaims)
	}
	if !claims || o.LockedUntil == "" {
		lack(history.LackLeases)
	}
	if o.Attempts == "" {
		lack(history.LackAttempts)
	}
	if o.AvailableAt == "" {
		lack(history.LackBackoff)
	}
	if !failed {
		lack(history.LackFailed)
	}
	if !m.HasJobs() {
		lack(history.LackJobs)
	}
	if !m.HasJobs() || !failed || o.EventType == "" {
		lack(history.LackPoison)
	}
	sort.Strings(out.Lacks)
	return out
}

func form(m schema.Mapping) string {
	switch st := m.States; {
	case m.StatusWords():
		return history.FormStatus
	case st.Cursor != nil:
		return history.FormCursor
	case st.Deleted == schema.DeletedPublished:
		return history.FormDeletion
	}
	return history.FormPredicate
}
