package observe

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// queueSets are the lists and sorted sets the final scan reads per queue.
var queueSets = []string{"wait", "paused", "active", "prioritized", "delayed", "completed", "failed"}

// ScanFinal reads the end state: every queue's lists, sets and job hashes,
// and every outbox and jobs row with canonical statuses, on MySQL.
func ScanFinal(ctx context.Context, rdb *redis.Client, db *sql.DB, m schema.Mapping, prefix string, queues []string) (history.Final, error) {
	f, err := ScanQueues(ctx, rdb, prefix, queues)
	if err != nil {
		return f, err
	}
	if err := m.Validate(); err != nil {
		return f, fmt.Errorf("final scan: %w", err)
	}
	if f.Outbox, err = scanOutbox(ctx, db, m); err != nil {
		return f, fmt.Errorf("final scan: %w", err)
	}
	if f.Jobs, err = ScanJobs(ctx, db, m); err != nil {
		return f, fmt.Errorf("final scan: %w", err)
	}
	return f, nil
}

// ScanQueues reads the end state of every BullMQ queue: its lists, sets and
// job hashes (a store's final scan adds the rows).
func ScanQueues(ctx context.Context, rdb *redis.Client, prefix string, queues []string) (history.Final, error) {
	f := history.Final{At: time.Now().UTC(), Queues: map[string]history.QueueScan{}}
	for _, q := range queues {
		scan, err := scanQueue(ctx, rdb, prefix+":"+q+":")
		if err != nil {
			return f, fmt.Errorf("final scan of queue %s: %w", q, err)
		}
		f.Queues[q] = scan
	}
	return f, nil
}

// scanQueue reads one queue's sets (by their actual type) and job hashes.
func scanQueue(ctx context.Context, rdb *redis.Client, base string) (history.QueueScan, error) {
	scan := history.QueueScan{Lists: map[string][]string{}, Jobs: map[string]history.JobHash{}}
	for _, name := range queueSets {
		members, err := readMembers(ctx, rdb, base+name)
		if err != nil {
			return scan, err
		}
		scan.Lists[name] = members
	}
	keys, err := scanJobKeys(ctx, rdb, base)
	if err != nil {
		return scan, err
	}
	for _, key := range keys {
		h, ok, err := readJobHash(ctx, rdb, key)
		if err != nil {
			return scan, err
		}
		if ok {
			scan.Jobs[strings.TrimPrefix(key, base)] = h
		}
	}
	return scan, nil
}

// readMembers returns a list's elements in order or a sorted set's members by
// score; a missing key reads as empty.
func readMembers(ctx context.Context, rdb *redis.Client, key string) ([]string, error) {
	typ, err := rdb.Type(ctx, key).Result()
	if err != nil {
		return nil, fmt.Errorf("type of %s: %w", key, err)
	}
	var out []string
	switch typ {
	case "none":
		return []string{}, nil
	case "list":
		out, err = rdb.LRange(ctx, key, 0, -1).Result()
	case "zset":
		out, err = rdb.ZRange(ctx, key, 0, -1).Result()
	default:
		return nil, fmt.Errorf("%s is a %s; BullMQ keeps it as a list or a sorted set", key, typ)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return out, nil
}

// scanJobKeys lists the job hash keys under base ("<prefix>:<q>:").
func scanJobKeys(ctx context.Context, rdb *redis.Client, base string) ([]string, error) {
	var keys []string
	iter := rdb.Scan(ctx, 0, globEscape(base)+"*", 1000).Iterator()
	for iter.Next(ctx) {
		if _, ok := jobIDFromKey(base, iter.Val()); ok {
			keys = append(keys, iter.Val())
		}
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("scan job keys %s*: %w", base, err)
	}
	return keys, nil
}

// readJobHash reads a job hash; ok is false when the key is gone or is not a
// hash.
func readJobHash(ctx context.Context, rdb *redis.Client, key string) (history.JobHash, bool, error) {
	vals, err := rdb.HMGet(ctx, key, "name", "data", "opts", "timestamp").Result()
	if err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE") {
		return history.JobHash{}, false, nil
	}
	if err != nil {
		return history.JobHash{}, false, fmt.Errorf("read job hash %s: %w", key, err)
	}
	if vals[0] == nil && vals[1] == nil && vals[2] == nil && vals[3] == nil {
		return history.JobHash{}, false, nil
	}
	h := history.JobHash{Name: str(vals[0]), Data: str(vals[1]), Opts: str(vals[2]), Timestamp: str(vals[3])}
	h.DataJobID = history.DataJobID(h.Data)
	return h, true, nil
}

// colOr is the quoted column, or the fallback expression when the mapping has
// no such column.
func colOr(column, fallback string) string {
	if column == "" {
		return fallback
	}
	return ident(column)
}

// ScanOutboxRows reads every outbox row as ScanFinal does.
func ScanOutboxRows(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.OutboxRow, error) {
	return scanOutbox(ctx, db, m)
}

// scanOutbox reads every outbox row: its key as text (Row; ID when it is
// an integer), its status as the model computes it now, and what else the
// mapping names. harness/model's DeriveFinal keys them by event.
// published_at and created_at are converted to UTC from the reading
// session's time zone, which is the writers' when every session takes the
// server's global zone (the runner sets no other).
func scanOutbox(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.OutboxRow, error) {
	o := m.Outbox
	cols, err := columnList(ctx, db, o.Table)
	if err != nil {
		return nil, err
	}
	st := model.Store{Dialect: model.MySQL, Columns: names(cols)}
	status, err := st.StatusExpr(m, ident)
	if err != nil {
		return nil, err
	}
	key := keyExpr(ident, modelTable{key: o.ID, columns: cols})
	q := fmt.Sprintf("SELECT %s, COALESCE(%s, ''), COALESCE(%s, ''), %s, %s, %s, %s, %s FROM %s ORDER BY %s",
		key, colOr(o.EventType, "NULL"), colOr(o.AggregateID, "NULL"), status, "COALESCE("+colOr(o.Attempts, "0")+", 0)",
		colOr(o.LastError, "NULL"), timeText(utc(colOr(o.PublishedAt, "NULL"))), timeText(utc(colOr(o.CreatedAt, "NULL"))),
		ident(o.Table), ident(o.ID))
	return scanAll(ctx, db, "outbox rows", q, nil, func(rows *sql.Rows) (history.OutboxRow, error) {
		return scanOutboxRow(rows, m)
	})
}

func scanOutboxRow(rows *sql.Rows, m schema.Mapping) (history.OutboxRow, error) {
	var r history.OutboxRow
	var status string
	var lastErr, published, created sql.NullString
	if err := rows.Scan(&r.Row, &r.Type, &r.JobID, &status, &r.Attempts, &lastErr, &published, &created); err != nil {
		return r, err
	}
	r.ID, _ = strconv.ParseInt(r.Row, 10, 64)
	r.Status, r.LastError = status, lastErr.String
	if m.StatusWords() {
		r.Status = model.Canonical(m.OutboxStatus, status)
	}
	var err error
	if r.PublishedAt, err = parseDBTime(published); err != nil {
		return r, fmt.Errorf("outbox row %s: published_at: %w", r.Row, err)
	}
	c, err := parseDBTime(created)
	if err != nil {
		return r, fmt.Errorf("outbox row %s: created_at: %w", r.Row, err)
	}
	if c != nil {
		r.Created = *c
	}
	return r, nil
}

// ScanJobs reads every jobs row with its canonical status (none without a
// jobs table).
func ScanJobs(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.JobRow, error) {
	if !m.HasJobs() {
		return []history.JobRow{}, nil
	}
	j := m.Jobs
	q := fmt.Sprintf("SELECT %s, %s, %s FROM %s ORDER BY %s",
		ident(j.ID), ident(j.Queue), ident(j.Status), ident(j.Table), ident(j.ID))
	return scanAll(ctx, db, "jobs rows", q, nil, func(rows *sql.Rows) (history.JobRow, error) {
		var r history.JobRow
		var status string
		err := rows.Scan(&r.ID, &r.Queue, &status)
		r.Status = model.Canonical(m.JobStatus, status)
		return r, err
	})
}

// scanAll runs q with args and reads every row with scan; errors say what
// was read ("outbox rows", "transitions"). No rows is an empty slice.
func scanAll[T any](ctx context.Context, db *sql.DB, what, q string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return out, nil
}
