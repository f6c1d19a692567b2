package faultproxy

import "errors"

// QueueError makes Redis refuse, with an error reply, every command that
// writes a key of one BullMQ queue; reads and other queues work (doc.go,
// "Redis: a broken queue"; the state is in redis_queue_error.go).
type QueueError struct {
	Queue  string // the queue whose writes are refused; required
	Prefix string // its key prefix; empty means "bull"
	// Sink is the dispatcher's sink kind (history.Sink*: "" is BullMQ);
	// for a stream or list sink the queue's key is its name itself, and
	// Prefix is not used. The nemesis sets it (SinkBound).
	Sink string
}

// OnSink is the fault for a dispatcher publishing to sink (SinkBound).
func (f QueueError) OnSink(sink string) Fault {
	f.Sink = sink
	return f
}

// Kind is "queue-error".
func (QueueError) Kind() Kind { return "queue-error" }

// String is "queue-error on <Queue>".
func (f QueueError) String() string { return "queue-error on " + f.Queue }

func (QueueError) protocol() string { return "redis" }

// Params records the queue; the nemesis adds refused and answered at the end.
func (f QueueError) Params() map[string]string {
	p := map[string]string{}
	if f.Queue != "" {
		p["queue"] = f.Queue
	}
	return p
}

// Validate wants a queue, and names that can be part of a key.
func (f QueueError) Validate() error {
	var missing error
	if f.Queue == "" {
		missing = errors.New("queue is empty: name the BullMQ queue whose adds Redis must refuse")
	}
	return invalid(f, missing, validName("queue", f.Queue), validName("prefix", f.Prefix))
}

func (f QueueError) apply(id string, seed int64) applied {
	prefix := f.Prefix
	if prefix == "" {
		prefix = "bull"
	}
	q := newQueueError(seed, prefix, f.Queue)
	if f.Sink != "" {
		q.exact = []byte(f.Queue)
	}
	key := queueErrors.register(q)
	attrs := map[string]string{"fault": key}
	// The reply rewriter first (downstream), so that it is on every
	// connection before the refuser (upstream) replaces a command.
	return applied{
		toxics: []toxicSpec{
			{Name: id + "-rewrite", Type: redisRewriteToxicType, Stream: Downstream.stream(), Attributes: attrs},
			{Name: id + "-refuse", Type: redisRefuseToxicType, Stream: Upstream.stream(), Attributes: attrs},
		},
		state:   q,
		release: func() { queueErrors.unregister(key) },
	}
}
