package faultproxy

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
)

// queueErrorPrefix starts every queue-error token. Tokens are letters,
// digits and underscores, so Redis echoes them unchanged in its
// unknown-command error.
const queueErrorPrefix = "outboxchaos_queue_error_"

// refusals counts what a refusing fault (queue-error, sql-error) did: the
// commands or statements its refuser kept from the server, and the error
// replies its answerer handed to their client in their place. Both toxics
// count at once.
type refusals struct {
	mu       sync.Mutex
	refused  int
	answered int
}

func (r *refusals) countRefused() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refused++
}

func (r *refusals) countAnswered() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answered++
}

// counts says how many were refused and how many error replies reached
// their client with the fault's message.
func (r *refusals) counts() (refused, answered int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused, r.answered
}

// tally is what the fault's history record counts.
func (r *refusals) tally() map[string]int {
	refused, answered := r.counts()
	return map[string]int{"refused": refused, "answered": answered}
}

// queueError is what one queue-error fault's two toxics share: the refuser
// (upstream) replaces every command that writes a key of the broken queue
// with the unknown command <token>, so Redis itself answers it with an error
// reply in its place (and, inside MULTI, aborts the transaction at EXEC);
// the rewriter (downstream) turns that reply into the fault's own message.
type queueError struct {
	queue string
	keys  []byte // "<prefix>:<queue>:", the start of every key of the queue
	token string
	// exact is the one key of a stream or list sink's queue (nil: keys
	// under <prefix>:<queue>:).
	exact []byte
	// anyWrite: every write is refused, whatever its keys (redis-state).
	anyWrite bool
	answer   []byte // the error reply the client sees
	refusals
}

func newQueueError(seed int64, prefix, queue string) *queueError {
	rng := rand.New(rand.NewSource(seed))
	return &queueError{
		queue: queue, keys: []byte(prefix + ":" + queue + ":"),
		token:  fmt.Sprintf("%s%016x", queueErrorPrefix, rng.Uint64()),
		answer: []byte("-ERR outboxchaos: queue " + queue + " is broken\r\n"),
	}
}

// substitute is the request sent instead of a refused command.
func (q *queueError) substitute() []byte {
	return []byte("*1\r\n$" + strconv.Itoa(len(q.token)) + "\r\n" + q.token + "\r\n")
}

// refuses says whether a request (its arguments, each cut at
// respMaxCapture bytes) writes a key of the broken queue.
func (q *queueError) refuses(args [][]byte) bool {
	if len(args) == 0 {
		return false
	}
	if q.anyWrite {
		return true // the refuser holds only writes to their end
	}
	for _, k := range writtenKeys(args) {
		if q.exact != nil && bytes.Equal(k, q.exact) || q.exact == nil && bytes.HasPrefix(k, q.keys) {
			return true
		}
	}
	return false
}

// writtenKeys lists the keys a command may write: every key of a script
// (EVAL, EVALSHA, FCALL: numkeys, then the keys), or the key arguments of
// a write command. Reads (GET, HGETALL, EVAL_RO, ...) write nothing.
func writtenKeys(args [][]byte) [][]byte {
	name := string(bytes.ToUpper(args[0]))
	switch name {
	case "EVAL", "EVALSHA", "FCALL":
		if len(args) < 3 {
			return nil
		}
		n, err := strconv.Atoi(string(args[2]))
		if err != nil || n < 0 {
			return nil
		}
		return args[3:min(3+n, len(args))]
	}
	switch keyArgs[name] {
	case firstKey:
		return args[1:min(2, len(args))]
	case twoKeys:
		return args[1:min(3, len(args))]
	case allArgs:
		return args[1:]
	case pairs:
		var out [][]byte
		for i := 1; i < len(args); i += 2 {
			out = append(out, args[i])
		}
		return out
	}
	return nil
}

type keyLayout int

const (
	notWrite keyLayout = iota
	firstKey           // the key is the first argument
	twoKeys            // source and destination
	allArgs            // every argument is a key
	pairs              // key value key value ...
)

// keyArgs lists the write commands a dispatcher may send to a queue's keys.
var keyArgs = map[string]keyLayout{
	"SET": firstKey, "SETNX": firstKey, "SETEX": firstKey, "PSETEX": firstKey, "GETSET": firstKey,
	"GETDEL": firstKey, "GETEX": firstKey, "APPEND": firstKey, "SETRANGE": firstKey,
	"INCR": firstKey, "INCRBY": firstKey, "INCRBYFLOAT": firstKey, "DECR": firstKey, "DECRBY": firstKey,
	"EXPIRE": firstKey, "PEXPIRE": firstKey, "EXPIREAT": firstKey, "PEXPIREAT": firstKey, "PERSIST": firstKey,
	"HSET": firstKey, "HSETNX": firstKey, "HMSET": firstKey, "HDEL": firstKey, "HINCRBY": firstKey, "HINCRBYFLOAT": firstKey,
	"LPUSH": firstKey, "RPUSH": firstKey, "LPUSHX": firstKey, "RPUSHX": firstKey, "LPOP": firstKey, "RPOP": firstKey,
	"LREM": firstKey, "LSET": firstKey, "LINSERT": firstKey, "LTRIM": firstKey,
	"SADD": firstKey, "SREM": firstKey, "SPOP": firstKey,
	"ZADD": firstKey, "ZREM": firstKey, "ZINCRBY": firstKey, "ZPOPMIN": firstKey, "ZPOPMAX": firstKey,
	"ZREMRANGEBYSCORE": firstKey, "ZREMRANGEBYRANK": firstKey,
	"XADD": firstKey, "XTRIM": firstKey, "XDEL": firstKey,
	"RPOPLPUSH": twoKeys, "LMOVE": twoKeys, "SMOVE": twoKeys, "RENAME": twoKeys, "RENAMENX": twoKeys, "COPY": twoKeys,
	"DEL": allArgs, "UNLINK": allArgs,
	"MSET": pairs, "MSETNX": pairs,
}

// queueErrors holds every queue-error fault's shared state.
var queueErrors = &registry[queueError]{prefix: "queue-error-"}
