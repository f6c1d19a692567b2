package faultproxy

import "fmt"

// LostReplyRedisAdd lets a job add (EVALSHA or EVAL, alone, pipelined or in
// MULTI) reach Redis and drops its reply and every later one on that
// connection (doc.go, "Lost replies").
type LostReplyRedisAdd struct {
	Times       int     // replies to lose before passing everything; 0 means once
	Probability float64 // that a matching add loses its reply; 0 means 1
}

// Kind is "lost-reply-redis-add".
func (LostReplyRedisAdd) Kind() Kind { return "lost-reply-redis-add" }

// String is the kind and how many replies it loses, e.g. "... x2".
func (f LostReplyRedisAdd) String() string { return fmt.Sprintf("%s x%d", f.Kind(), once(f.Times)) }

func (LostReplyRedisAdd) protocol() string { return "redis" }

// Params records times and probability; the nemesis adds fired at the end.
func (f LostReplyRedisAdd) Params() map[string]string {
	return lostReplyParams(f.Times, f.Probability)
}

// Validate wants times >= 0 and a probability within [0, 1].
func (f LostReplyRedisAdd) Validate() error {
	return invalid(f, validTimes(f.Times), validProbability(f.Probability))
}

func (f LostReplyRedisAdd) apply(id string, seed int64) applied {
	return applyLostReply(id, newLostReply(seed, once(f.Times), certain(f.Probability)), redisWatchToxicType, redisDropToxicType)
}
