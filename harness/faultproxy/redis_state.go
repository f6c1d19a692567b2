package faultproxy

import (
	"fmt"
	"math/rand"
)

// RedisState makes Redis answer every command that writes (writtenKeys:
// the write commands and every EVAL, EVALSHA or FCALL) with the error reply
// of a server-wide state, on every key: READONLY (a replica during a
// failover), LOADING (a restart reloading its data) or OOM (maxmemory
// reached with noeviction). Reads work. It reuses queue-error's toxics and
// state (redis_queue_error.go), with no queue to match (doc.go, "Redis: a
// server state").
type RedisState struct {
	State string // RedisReadOnly, RedisLoading or RedisOOM; required
}

// The states a redis-state fault can answer with.
const (
	RedisReadOnly = "readonly"
	RedisLoading  = "loading"
	RedisOOM      = "oom"
)

// redisStateReplies are the server's own error replies for each state.
var redisStateReplies = map[string]string{
	RedisReadOnly: "-READONLY You can't write against a read only replica.\r\n",
	RedisLoading:  "-LOADING Redis is loading the dataset in memory\r\n",
	RedisOOM:      "-OOM command not allowed when used memory > 'maxmemory'.\r\n",
}

// Kind is "redis-state".
func (RedisState) Kind() Kind { return "redis-state" }

// String is "redis-state <State>".
func (f RedisState) String() string { return "redis-state " + f.State }

func (RedisState) protocol() string { return "redis" }

// Params records the state; the nemesis adds refused and answered at the end.
func (f RedisState) Params() map[string]string {
	p := map[string]string{}
	if f.State != "" {
		p["state"] = f.State
	}
	return p
}

// Validate wants one of the known states.
func (f RedisState) Validate() error {
	var bad error
	if _, ok := redisStateReplies[f.State]; !ok {
		bad = fmt.Errorf("state %q: want %q, %q or %q", f.State, RedisReadOnly, RedisLoading, RedisOOM)
	}
	return invalid(f, bad)
}

func (f RedisState) apply(id string, seed int64) applied {
	rng := rand.New(rand.NewSource(seed))
	q := &queueError{
		anyWrite: true,
		token:    fmt.Sprintf("%s%016x", queueErrorPrefix, rng.Uint64()),
		answer:   []byte(redisStateReplies[f.State]),
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
