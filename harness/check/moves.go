package check

import (
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// move is what one outbox transition did (see doc.go).
type move int

const (
	moveOther    move = iota // anything not listed below
	moveInsert               // the producer's insert
	moveClaim                // pending (or another live status) -> processing
	moveTakeover             // processing -> processing under a new token
	moveExtend               // processing -> processing under the same token
	moveFailure              // processing -> pending with a new error: transient failure
	moveRelease              // processing -> pending, error unchanged: recovery or release
	moveFinalize             // live status -> published or failed
	moveRewrite              // any update of a row already published or failed
	moveDelete               // the row was deleted
)

func isFinal(status string) bool {
	return status == history.StatusPublished || status == history.StatusFailed
}

// classify tells what an outbox transition did.
func classify(t history.Transition) move {
	switch {
	case t.Op == "insert":
		return moveInsert
	case t.Op == "delete":
		return moveDelete
	case isFinal(t.OldStatus):
		return moveRewrite
	case isFinal(t.NewStatus):
		return moveFinalize
	case t.NewStatus == history.StatusProcessing && t.OldStatus == history.StatusProcessing:
		if newOwner(t) {
			return moveTakeover
		}
		return moveExtend
	case t.NewStatus == history.StatusProcessing:
		return moveClaim
	case t.OldStatus == history.StatusProcessing && t.NewStatus == history.StatusPending:
		if t.LastError != "" && t.LastError != t.OldLastError {
			return moveFailure
		}
		return moveRelease
	}
	return moveOther
}

// newOwner tells whether a processing -> processing write installed a new
// owner: a different non-empty lock token (or, for a schema without tokens, a
// different locked_by is all we can see, and locked_by is not recorded as an
// old value, so such a write counts as an extension).
func newOwner(t history.Transition) bool {
	return t.LockToken != "" && t.LockToken != t.OldLockToken
}

// ownerChanged tells whether a write that ends a hold carries a token other
// than the one it ended (the writer was not the owner).
func ownerChanged(t history.Transition) bool {
	return t.LockToken != "" && t.OldLockToken != "" && t.LockToken != t.OldLockToken
}

// hold is one claim of an event: from its claim (or takeover) to the move that
// ended it, if any.
type hold struct {
	Event    int64
	Token    string
	Owner    string // locked_by
	Start    time.Time
	Attempts int
	Until    *time.Time // lease end, moved by extensions; nil when not recorded
	Claim    history.Transition
	End      *history.Transition // nil while still held at the end of the history
	EndMove  move
}

// holds returns the claims of one event's transitions (in sequence order).
func holds(event int64, ts []history.Transition) []hold {
	var out []hold
	cur := -1
	closeCur := func(t history.Transition, m move) {
		if cur >= 0 {
			tc := t
			out[cur].End = &tc
			out[cur].EndMove = m
			cur = -1
		}
	}
	for _, t := range ts {
		m := classify(t)
		switch m {
		case moveClaim, moveTakeover:
			closeCur(t, m)
			out = append(out, hold{Event: event, Token: t.LockToken, Owner: t.LockedBy, Start: t.At,
				Attempts: t.Attempts, Until: t.LockedUntil, Claim: t})
			cur = len(out) - 1
		case moveExtend:
			if cur >= 0 && t.LockedUntil != nil {
				out[cur].Until = t.LockedUntil
			}
		case moveFailure, moveRelease, moveFinalize, moveRewrite, moveDelete, moveOther:
			closeCur(t, m)
		}
	}
	return out
}
