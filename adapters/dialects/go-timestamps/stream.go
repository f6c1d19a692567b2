package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"
)

// Stream entry fields (the manifest's sink.message_id and sink.payload).
const (
	fieldMessageID = "outbox_id"
	fieldData      = "data"
)

// outcome is what publishing one message came to.
type outcome struct {
	err       error // nil: the entry was appended
	permanent bool  // err can never pass (an unknown topic): abandon now
}

// publish appends every message to its topic's stream, one XADD each, all
// in one pipeline bounded by the publish timeout. A message's id on the
// stream is its row's uuid, the same on every attempt, so a consumer drops
// the duplicates an at-least-once relay makes by it.
func (r *relay) publish(ctx context.Context, batch []message) []outcome {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.publishTimeout)
	defer cancel()
	out := make([]outcome, len(batch))
	cmds := make([]*redis.StringCmd, len(batch))
	pipe := r.rdb.Pipeline()
	for i, m := range batch {
		if !slices.Contains(r.cfg.topics, m.topic) {
			out[i] = outcome{err: fmt.Errorf("topic %q is not in OUTBOX_QUEUES", m.topic), permanent: true}
			continue
		}
		cmds[i] = pipe.XAdd(ctx, &redis.XAddArgs{Stream: m.topic, ID: "*",
			Values: []any{fieldMessageID, r.messageID(m), fieldData, m.payload}})
	}
	if pipe.Len() == 0 {
		return out
	}
	_, _ = pipe.Exec(ctx) // each command carries its own error
	for i, c := range cmds {
		if c != nil && c.Err() != nil {
			out[i] = outcome{err: fmt.Errorf("xadd %s: %w", batch[i].topic, c.Err())}
		}
	}
	return out
}

// messageID is the id m goes out under: its row's uuid. The planted
// new-id-on-republish gives a message already attempted before a fresh
// uuid instead, as if each delivery were a new message.
func (r *relay) messageID(m message) string {
	if r.cfg.plant == plantNewIDOnRepublish && m.attempt > 1 {
		return freshUUID()
	}
	return m.id
}

// freshUUID is a random (version 4) uuid in text form.
func freshUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
