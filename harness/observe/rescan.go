package observe

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// EventScan is the KeyNote event of a job hash read by the scan after a
// keyspace gap.
const EventScan = "scan"

// EventReload is the KeyNote event of a job hash that a restarted Redis
// loaded back from its append-only file: its "new" notification carried a
// creation stamp already seen, so it is a read, not a creation.
const EventReload = "reload"

// rescan reads every job hash of every queue after a keyspace gap and records
// a "scan" note for each, so that every job that exists after the gap has a
// read. A key gone or not a hash by the time it is read is skipped. A queue
// that cannot be scanned gets a keyspace Gap saying so.
func (o *RedisObserver) rescan(ctx context.Context) {
	for _, q := range o.queues {
		err := o.rescanRetrying(ctx, q)
		if err == nil || ctx.Err() != nil {
			continue
		}
		o.rec.AddGap(history.Gap{Source: SourceKeyspace, At: time.Now().UTC(),
			Detail: fmt.Sprintf("could not scan queue %s's job hashes after a gap: %v", q, err)})
	}
}

// rescanLoading bounds how long a rescan waits for a restarted Redis that
// is still loading its dataset (it answers LOADING until then).
const rescanLoading = 60 * time.Second

// rescanRetrying scans q, retrying while Redis is still loading its data
// after a restart: a scan refused with LOADING is not a gap yet.
func (o *RedisObserver) rescanRetrying(ctx context.Context, q string) error {
	deadline := time.Now().Add(rescanLoading)
	for {
		err := o.rescanQueue(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "LOADING") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (o *RedisObserver) rescanQueue(ctx context.Context, q string) error {
	base := o.base(q)
	keys, err := scanJobKeys(ctx, o.rdb, base)
	if err != nil {
		return err
	}
	for _, key := range keys {
		h, ok, err := readJobHash(ctx, o.rdb, key)
		if err != nil {
			return err
		}
		id, isJob := jobIDFromKey(base, key)
		if !ok || !isJob {
			continue
		}
		note := history.KeyNote{Queue: q, JobID: id, Event: EventScan,
			DataJobID: h.DataJobID, Data: h.Data, Opts: h.Opts, Stamp: h.Timestamp, At: time.Now().UTC()}
		o.restamp(key, note)
		o.rec.AddKey(note)
		o.signalNote(note)
	}
	return nil
}
