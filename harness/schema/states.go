package schema

import (
	"fmt"
	"strings"
)

// States says where a message is for an outbox without a status column: one
// source per canonical state. A state with no source does not exist in the
// outbox (an outbox with no claimed source has no claims). harness/model
// derives canonical transitions from these.
type States struct {
	// Published is a SQL predicate over the outbox row that holds once the
	// message is published ("processed_at IS NOT NULL").
	Published string `json:"published,omitempty" yaml:"published,omitempty"`
	// Deleted says what deleting a row means: Published or Failed ("" when
	// the relay never deletes).
	Deleted string `json:"deleted,omitempty" yaml:"deleted,omitempty"`
	// Cursor is an offsets table whose column passes the row's id: every row
	// with an id up to the group's offset is published.
	Cursor *Cursor `json:"cursor,omitempty" yaml:"cursor,omitempty"`
	// Failed is a SQL predicate that holds once the message has failed for
	// good ("abandoned_at IS NOT NULL").
	Failed string `json:"failed,omitempty" yaml:"failed,omitempty"`
	// DeadLetter is a table a failed message's row is copied into.
	DeadLetter *DeadLetter `json:"dead_letter,omitempty" yaml:"dead_letter,omitempty"`
	// Claimed is a SQL predicate that holds while a relay holds the row
	// ("locked_until > NOW(6)"), evaluated on the database clock at each
	// write.
	Claimed string `json:"claimed,omitempty" yaml:"claimed,omitempty"`
}

// Cursor is an offsets table: per consumer group, the last outbox id acked.
type Cursor struct {
	Table       string `json:"table" yaml:"table"`
	Column      string `json:"column" yaml:"column"`
	GroupColumn string `json:"group_column,omitempty" yaml:"group_column,omitempty"`
	Group       string `json:"group,omitempty" yaml:"group,omitempty"`
}

// DeadLetter is a table that receives failed messages; ID is its column
// holding the outbox row's primary key.
type DeadLetter struct {
	Table string `json:"table" yaml:"table"`
	ID    string `json:"id" yaml:"id"`
}

// What a deleted row means (States.Deleted).
const (
	DeletedPublished = "published"
	DeletedFailed    = "failed"
)

// IsZero tells whether no state source is given (the status-word form).
func (s States) IsZero() bool {
	return s.Published == "" && s.Deleted == "" && s.Cursor == nil && s.Failed == "" && s.DeadLetter == nil && s.Claimed == ""
}

// HasFailed tells whether the outbox can say a message failed for good.
func (s States) HasFailed() bool {
	return s.Failed != "" || s.DeadLetter != nil || s.Deleted == DeletedFailed
}

// FieldError is a mistake in one key of the mapping, with what to do
// about it (a manifest reports it at that key).
type FieldError struct {
	Field, What, Fix string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.What + " (fix: " + e.Fix + ")" }

// validate checks that each state has at most one source and that
// published has one.
func (s States) validate(o Outbox) error {
	published := nonEmpty(s.Published != "", "published", s.Deleted == DeletedPublished, "deleted: published", s.Cursor != nil, "cursor")
	failed := nonEmpty(s.Failed != "", "failed", s.Deleted == DeletedFailed, "deleted: failed", s.DeadLetter != nil, "dead_letter")
	switch {
	case len(published) == 0:
		return &FieldError{"states", "nothing says a message is published",
			"give published (a SQL predicate over the row), deleted: published, or cursor (an offsets table)"}
	case len(published) > 1:
		return &FieldError{"states", fmt.Sprintf("published has %d sources (%s)", len(published), strings.Join(published, ", ")), "keep one"}
	case len(failed) > 1:
		return &FieldError{"states", fmt.Sprintf("failed has %d sources (%s)", len(failed), strings.Join(failed, ", ")), "keep one"}
	case s.Deleted != "" && s.Deleted != DeletedPublished && s.Deleted != DeletedFailed:
		return &FieldError{"states.deleted", fmt.Sprintf("%q is not what a deletion can mean", s.Deleted), "use published or failed"}
	case o.Status != "":
		return &FieldError{"outbox.status", fmt.Sprintf("a status column (%s) and states are both given", o.Status),
			"map its words with outbox_status and drop states, or drop status"}
	}
	if c := s.Cursor; c != nil {
		if err := c.validate(o); err != nil {
			return err
		}
	}
	if d := s.DeadLetter; d != nil && (strings.TrimSpace(d.Table) == "" || strings.TrimSpace(d.ID) == "") {
		return &FieldError{"states.dead_letter", "its table or id column is missing", "name its table and the column holding the outbox row's id (id)"}
	}
	return nil
}

func (c Cursor) validate(o Outbox) error {
	switch {
	case strings.TrimSpace(c.Table) == "" || strings.TrimSpace(c.Column) == "":
		return &FieldError{"states.cursor", "its table or column is missing", "name the offsets table and the column holding the last id passed"}
	case (c.GroupColumn == "") != (c.Group == ""):
		return &FieldError{"states.cursor", "group_column and group go together",
			"name the column of the consumer group and the group the relay uses, or neither"}
	case o.IDType != KeyAuto:
		return &FieldError{"states.cursor", fmt.Sprintf("outbox.id %s is not AUTO_INCREMENT", o.ID),
			"a cursor passes ids in order, so the outbox id must be the database's counter"}
	}
	return nil
}

// nonEmpty lists the names whose flag is set, from (flag, name) pairs.
func nonEmpty(pairs ...any) []string {
	var out []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].(bool) {
			out = append(out, pairs[i+1].(string))
		}
	}
	return out
}
