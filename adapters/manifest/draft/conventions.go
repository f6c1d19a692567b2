package draft

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/declare"
)

// prefixSeen is one last_error prefix the data shows, and on how many rows.
type prefixSeen struct {
	prefix, word string // word: what made it a release or a recovery
	rows         int
}

// conventionGuess is what the data says of the dispatcher's returns to
// pending: the last_error prefixes of pending rows that have failed before,
// each read as a release, a recovery or neither by its words alone. One
// snapshot cannot show a row going back to pending, and a release and a
// retry both write last_error: every prefix is a guess, to be confirmed.
type conventionGuess struct {
	note                 string // why nothing was read, or what was
	releases, recoveries []prefixSeen
	others               []prefixSeen
}

// maxErrorTexts caps the distinct last_error texts read.
const maxErrorTexts = 500

// guessConventions reads the last_error texts of the outbox's pending rows
// with attempts > 0 and groups them by prefix.
func (s source) guessConventions(ctx context.Context, d draft) (conventionGuess, error) {
	o := d.pair.outbox
	le, att := o.picks["last_error"].column, o.picks["attempts"].column
	switch {
	case d.shape != nil && d.shape.cursor != nil:
		return conventionGuess{note: "none proposed: a cursor outbox's rows never go back to pending"}, nil
	case s.db == nil:
		return conventionGuess{note: "none proposed: give --dsn to read the last_error prefixes of rows that went back to pending"}, nil
	case le == "" || att == "":
		return conventionGuess{note: "none proposed: the outbox has no last_error or no attempts column to read them from"}, nil
	}
	cond, args := d.pendingCondition(s.db)
	texts, err := s.db.lastErrors(ctx, o.table.Name, le, att, cond, args)
	if err != nil {
		return conventionGuess{}, err
	}
	g := classifyPrefixes(texts)
	g.note = fmt.Sprintf("the last_error prefixes of pending rows with %s > 0 in %s: prefixes seen, to be confirmed (a release and a retry both write last_error, so each is read by its words alone)", att, s.db.where)
	return g, nil
}

// pendingCondition is the SQL that holds for a pending outbox row: its
// status is a word that maps to pending, or none of its states' predicates
// holds (a row a relay deletes once published is pending while it is
// there and unclaimed).
func (d draft) pendingCondition(db *readOnlyDB) (string, []any) {
	if d.shape != nil {
		conds := []string{"1 = 1"}
		for _, l := range d.shape.lines {
			if l.sql != "" {
				conds = append(conds, "NOT COALESCE("+l.sql+", FALSE)")
			}
		}
		return strings.Join(conds, " AND "), nil
	}
	var marks []string
	var args []any
	for _, p := range d.outboxStatus.picks {
		if p.canonical == "pending" {
			args = append(args, p.word)
			marks = append(marks, db.placeholder(len(args)))
		}
	}
	if len(marks) == 0 {
		return "1 = 0", nil
	}
	return db.quote(d.pair.outbox.picks["status"].column) + " IN (" + strings.Join(marks, ", ") + ")", args
}

// lastErrors returns the distinct last_error texts of table's rows where
// cond holds and attempts > 0, with how many rows have each.
func (r *readOnlyDB) lastErrors(ctx context.Context, table, lastError, attempts, cond string, args []any) ([]prefixSeen, error) {
	le := r.quote(lastError)
	q := fmt.Sprintf("SELECT %s, COUNT(*) FROM %s WHERE (%s) AND %s > 0 AND %s IS NOT NULL GROUP BY %s ORDER BY 2 DESC, 1 LIMIT %d",
		le, r.quote(table), cond, r.quote(attempts), le, le, maxErrorTexts)
	rows, err := r.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: read the last_error texts of %s's pending rows: %w", r.where, table, err)
	}
	defer rows.Close()
	var out []prefixSeen
	for rows.Next() {
		var text sql.NullString
		var n int
		if err := rows.Scan(&text, &n); err != nil {
			return nil, fmt.Errorf("%s: read the last_error texts of %s: %w", r.where, table, err)
		}
		out = append(out, prefixSeen{prefix: text.String, rows: n})
	}
	return out, rows.Err()
}

// classifyPrefixes groups texts by errorPrefix and reads each prefix as a
// release, a recovery, or neither (both counts as neither).
func classifyPrefixes(texts []prefixSeen) conventionGuess {
	rows := map[string]int{}
	for _, t := range texts {
		if p := declare.ErrorPrefix(t.prefix); strings.TrimSpace(p) != "" {
			rows[p] += t.rows
		}
	}
	var all []prefixSeen
	for p, n := range rows {
		all = append(all, prefixSeen{prefix: p, rows: n})
	}
	sort.Slice(all, func(i, k int) bool {
		if all[i].rows != all[k].rows {
			return all[i].rows > all[k].rows
		}
		return all[i].prefix < all[k].prefix
	})
	var g conventionGuess
	for _, p := range all {
		conv, word := declare.ReadPrefix(p.prefix)
		p.word = word
		switch conv {
		case declare.Releases:
			g.releases = append(g.releases, p)
		case declare.Recoveries:
			g.recoveries = append(g.recoveries, p)
		default:
			g.others = append(g.others, p)
		}
	}
	return g
}
