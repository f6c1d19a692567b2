package faultproxy

import "fmt"

// LostReplyRedisAdd lets a publish reach Redis and drops its reply and
// every later one on that connection (doc.go, "Lost replies"). A publish is
// a job add (EVALSHA or EVAL, alone, pipelined or in MULTI) for a BullMQ
// sink, an XADD for a stream sink, an LPUSH or RPUSH for a list sink.
type LostReplyRedisAdd struct {
	Times       int     // replies to lose before passing everything; 0 means once
	Probability float64 // that a matching add loses its reply; 0 means 1
	// Sink is the dispatcher's sink kind (history.Sink*: "" is BullMQ);
	// the nemesis sets it (SinkBound).
	Sink string
}

// Kind is "lost-reply-redis-add".
func (LostReplyRedisAdd) Kind() Kind { return "lost-reply-redis-add" }

// String is the kind and how many replies it loses, e.g. "... x2".
func (f LostReplyRedisAdd) String() string { return fmt.Sprintf("%s x%d", f.Kind(), once(f.Times)) }

func (LostReplyRedisAdd) protocol() string { return "redis" }

// Params records times and probability, and the sink when it is not
// BullMQ; the nemesis adds fired at the end.
func (f LostReplyRedisAdd) Params() map[string]string {
	p := lostReplyParams(f.Times, f.Probability)
	if f.Sink != "" {
		p["sink"] = f.Sink
	}
	return p
}

// Validate wants times >= 0, a probability within [0, 1] and a known sink.
func (f LostReplyRedisAdd) Validate() error {
	var sink error
	if _, ok := sinkAdds[f.Sink]; !ok && f.Sink != "" {
		sink = fmt.Errorf("sink %q: want redis-stream, redis-list or empty (BullMQ)", f.Sink)
	}
	return invalid(f, validTimes(f.Times), validProbability(f.Probability), sink)
}

// OnSink is the fault for a dispatcher publishing to sink (SinkBound).
func (f LostReplyRedisAdd) OnSink(sink string) Fault {
	f.Sink = sink
	return f
}

// sinkAdds are the commands that publish to a stream or list sink.
var sinkAdds = map[string]map[string]bool{
	"redis-stream": {"XADD": true},
	"redis-list":   {"LPUSH": true, "RPUSH": true, "LPUSHX": true, "RPUSHX": true},
}

func (f LostReplyRedisAdd) apply(id string, seed int64) applied {
	lr := newLostReply(seed, once(f.Times), certain(f.Probability))
	lr.adds = sinkAdds[f.Sink]
	return applyLostReply(id, lr, redisWatchToxicType, redisDropToxicType)
}
