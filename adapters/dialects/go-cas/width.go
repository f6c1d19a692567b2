package main

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxReason is the cap on a failure text while last_error's width is not
// known yet (the contract's VARCHAR(1024)).
const maxReason = 1024

// widthQuery reads last_error's width in characters from the server's own
// catalog: a deployment's column may be narrower than the contract's.
const widthQuery = `SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS
	WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'last_error'`

// column is last_error's width, read once; until a read succeeds each fit
// tries again and meanwhile cuts to maxReason.
type column struct {
	mu    sync.Mutex
	width int
}

// learnWidth reads the width if it is not known yet.
func (e *engine) learnWidth(ctx context.Context) {
	e.col.mu.Lock()
	defer e.col.mu.Unlock()
	if e.col.width > 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var w int64
	if err := e.db.QueryRowContext(ctx, widthQuery).Scan(&w); err != nil {
		e.lg.Printf("read last_error's width: %v (cutting failure texts to %d until it is read)", err, maxReason)
		return
	}
	e.col.width = int(min(w, maxReason))
	e.lg.Printf("last_error holds %d characters", e.col.width)
}

// fit makes s a text last_error takes: valid UTF-8, at most the column's
// width in characters, cut on a character boundary.
func (e *engine) fit(s string) string {
	e.col.mu.Lock()
	n := e.col.width
	e.col.mu.Unlock()
	if n <= 0 {
		n = maxReason
	}
	s = strings.ToValidUTF8(s, "?")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return s[:i]
}
