package faultproxy

import (
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateAcceptsEveryKindWithSensibleFields(t *testing.T) {
	good := []Fault{
		Latency{Latency: 100 * time.Millisecond},
		Latency{Latency: 100 * time.Millisecond, Jitter: 30 * time.Millisecond, Direction: Upstream},
		Blackhole{},
		Blackhole{Timeout: time.Second, Direction: Downstream},
		Reset{},
		Down{},
		Bandwidth{Rate: 10},
		Slicer{Average: 10, Size: 5, Delay: 100},
		LostReplyRedisAdd{},
		LostReplyMySQLCommit{Times: 3, Probability: 0.5},
		QueueError{Queue: "ai-bulk"},
		CommitHoldMySQL{Hold: time.Second},
		SQLError{},
		SQLError{Probability: 0.1},
		SQLError{Store: StorePostgres},
		LostReplyPostgresCommit{Times: 2, Probability: 0.5},
		CommitHoldPostgres{Hold: time.Second},
		HalfOpen{},
		HalfOpen{Handshake: true},
		SQLReadOnly{},
		SQLReadOnly{Store: StorePostgres},
	}
	for _, f := range good {
		require.NoError(t, f.Validate(), "%+v", f)
	}
}

func TestValidateRejectsBadFaultsSayingWhatToFix(t *testing.T) {
	bad := []struct {
		f    Fault
		want string
	}{
		{Latency{}, "fault latency: latency and jitter are both 0: set Latency"},
		{Latency{Latency: -time.Millisecond}, "latency -1ms: want >= 0"},
		{Latency{Latency: 1500 * time.Microsecond}, "whole milliseconds"},
		{Latency{Latency: time.Millisecond, Jitter: 2 * time.Millisecond}, "jitter 2ms exceeds latency 1ms"},
		{Latency{Latency: time.Millisecond, Direction: "sideways"}, `fault latency: direction "sideways": want "downstream" or "upstream"`},
		{Blackhole{Timeout: -time.Second}, "fault blackhole: timeout -1s: want >= 0"},
		{Reset{Timeout: time.Microsecond}, "fault reset: timeout 1µs: want whole milliseconds"},
		{Bandwidth{}, "fault bandwidth: rate 0 KB/s: want > 0"},
		{Bandwidth{Rate: -1}, "rate -1 KB/s"},
		{Slicer{}, "fault slicer: average slice size 0 bytes: want > 0"},
		{Slicer{Average: 10, Size: 10}, "size variation 10 bytes: want >= 0 and < average 10"},
		{Slicer{Average: 10, Delay: -1}, "delay -1 µs"},
		{LostReplyRedisAdd{Times: -1}, "fault lost-reply-redis-add: times -1: want >= 0"},
		{LostReplyRedisAdd{Probability: 1.5}, "probability 1.5: want within [0, 1]"},
		{LostReplyMySQLCommit{Probability: -0.5}, "fault lost-reply-mysql-commit: probability -0.5"},
		{SQLError{Probability: 2}, "fault sql-error: probability 2: want within [0, 1]"},
		{SQLError{Store: "oracle"}, `fault sql-error: store "oracle": want "mysql" or "postgres"`},
		{SQLReadOnly{Store: "oracle"}, `fault sql-read-only: store "oracle": want "mysql" or "postgres"`},
		{RedisState{}, `fault redis-state: state "": want "readonly", "loading" or "oom"`},
		{RedisState{State: "down"}, `fault redis-state: state "down": want "readonly", "loading" or "oom"`},
		{LostReplyPostgresCommit{Times: -1}, "fault lost-reply-postgres-commit: times -1: want >= 0"},
		{CommitHoldPostgres{}, "fault commit-hold-postgres: hold 0s: want > 0"},
	}
	for _, b := range bad {
		err := b.f.Validate()
		require.Error(t, err, "%+v", b.f)
		require.Contains(t, err.Error(), b.want)
	}
}

// The history record of a fault keeps the kind strings and param keys and
// values that recorded runs (testdata/histories) and reports read: only the
// settings given, formatted as before the kinds were types.
func TestParamsKeepTheRecordedForm(t *testing.T) {
	cases := []struct {
		f    Fault
		kind Kind
		want map[string]string
	}{
		{Latency{Latency: 150 * time.Millisecond, Jitter: 50 * time.Millisecond}, "latency", map[string]string{"latency": "150ms", "jitter": "50ms"}},
		{Latency{Latency: 200 * time.Millisecond, Direction: Upstream}, "latency", map[string]string{"latency": "200ms", "direction": "upstream"}},
		{Blackhole{}, "blackhole", map[string]string{}},
		{Blackhole{Timeout: time.Second, Direction: Downstream}, "blackhole", map[string]string{"timeout": "1s", "direction": "downstream"}},
		{Reset{Timeout: 10 * time.Millisecond}, "reset", map[string]string{"timeout": "10ms"}},
		{Down{}, "down", map[string]string{}},
		{Bandwidth{Rate: 64}, "bandwidth", map[string]string{"rate_kbps": "64"}},
		{Slicer{Average: 64, Size: 32, Delay: 100}, "slicer", map[string]string{"slice_average": "64", "slice_size": "32", "slice_delay_us": "100"}},
		{LostReplyRedisAdd{}, "lost-reply-redis-add", map[string]string{}},
		{LostReplyRedisAdd{Times: 2, Probability: 0.5}, "lost-reply-redis-add", map[string]string{"times": "2", "probability": "0.5"}},
		{LostReplyMySQLCommit{Times: 1}, "lost-reply-mysql-commit", map[string]string{"times": "1"}},
		{QueueError{Queue: "ai-bulk", Prefix: "oc1"}, "queue-error", map[string]string{"queue": "ai-bulk"}},
		{CommitHoldMySQL{Times: 2, Hold: time.Second}, "commit-hold-mysql", map[string]string{"times": "2"}},
		{SQLError{Probability: 0.1}, "sql-error", map[string]string{"probability": "0.1"}},
		{SQLError{Probability: 0.1, Store: StoreMySQL}, "sql-error", map[string]string{"probability": "0.1"}},
		{SQLError{Probability: 0.1, Store: StorePostgres}, "sql-error", map[string]string{"probability": "0.1", "store": "postgres"}},
		{LostReplyPostgresCommit{Times: 1}, "lost-reply-postgres-commit", map[string]string{"times": "1"}},
		{CommitHoldPostgres{Times: 2, Hold: time.Second}, "commit-hold-postgres", map[string]string{"times": "2"}},
		{RedisState{State: RedisOOM}, "redis-state", map[string]string{"state": "oom"}},
		{HalfOpen{}, "half-open", map[string]string{}},
		{HalfOpen{Handshake: true}, "half-open", map[string]string{"handshake": "true"}},
	}
	for _, c := range cases {
		require.Equal(t, c.kind, c.f.Kind(), "%+v", c.f)
		require.Equal(t, c.want, c.f.Params(), "%+v", c.f)
	}
}

// A fault names itself and its main setting; a schedule line reads it
// ("redis latency 150ms on d1 for 2s").
func TestFaultsNameThemselvesAndTheirProtocol(t *testing.T) {
	cases := []struct {
		f        Fault
		name     string
		protocol string
	}{
		{Latency{Latency: 150 * time.Millisecond, Jitter: 50 * time.Millisecond}, "latency 150ms", ""},
		{Latency{Latency: 800 * time.Millisecond, Direction: Upstream}, "latency 800ms upstream", ""},
		{Blackhole{}, "blackhole", ""},
		{Reset{Timeout: time.Second}, "reset after 1s", ""},
		{Down{}, "down", ""},
		{Bandwidth{Rate: 64}, "bandwidth 64KB/s", ""},
		{Slicer{Average: 8, Size: 4}, "slicer 8B", ""},
		{LostReplyRedisAdd{Times: 2}, "lost-reply-redis-add x2", "redis"},
		{LostReplyMySQLCommit{}, "lost-reply-mysql-commit x1", "mysql"},
		{QueueError{Queue: "ai-bulk"}, "queue-error on ai-bulk", "redis"},
		{CommitHoldMySQL{Hold: time.Second}, "commit-hold-mysql 1s", "mysql"},
		{SQLError{Probability: 0.1}, "sql-error p=0.1", "mysql"},
		{SQLError{Store: StorePostgres}, "sql-error p=1", "postgres"},
		{LostReplyPostgresCommit{}, "lost-reply-postgres-commit x1", "postgres"},
		{CommitHoldPostgres{Hold: time.Second}, "commit-hold-postgres 1s", "postgres"},
		{RedisState{State: RedisReadOnly}, "redis-state readonly", "redis"},
		{HalfOpen{}, "half-open", ""},
		{HalfOpen{Handshake: true}, "half-open handshake", ""},
		{SQLReadOnly{}, "sql-read-only", "mysql"},
		{SQLReadOnly{Store: StorePostgres}, "sql-read-only", "postgres"},
	}
	for _, c := range cases {
		require.Equal(t, c.name, c.f.String())
		require.Equal(t, c.protocol, Protocol(c.f), c.name)
	}
}

// All is the one list of kinds: each once, each in doc.go's table of the
// toxics it becomes.
func TestEveryKindIsListedOnceAndDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		require.False(t, seen[k], "kind %s is listed twice in All", k)
		seen[k] = true
		require.Regexp(t, `(?m)^//\t`+regexp.QuoteMeta(string(k))+` `, string(doc), "doc.go's table names no toxics for %s", k)
	}
	require.Len(t, seen, 16)
}

func TestAddRejectsAnInvalidFaultNamingTheLink(t *testing.T) {
	s := newServer(t, 1)
	p, err := s.Link("redis/d1", "127.0.0.1:1")
	require.NoError(t, err)
	_, err = p.Add(Bandwidth{})
	require.ErrorContains(t, err, "link redis/d1: fault bandwidth: rate 0 KB/s")
	_, err = p.Add(nil)
	require.ErrorContains(t, err, "link redis/d1: no fault given")
	require.Empty(t, p.Active())
}

func TestLinkValidatesAndIsIdempotentPerName(t *testing.T) {
	s := newServer(t, 1)
	_, err := s.Link("", "127.0.0.1:1")
	require.ErrorContains(t, err, "link name is empty")
	_, err = s.Link("redis d1", "127.0.0.1:1")
	require.ErrorContains(t, err, "whitespace")
	_, err = s.Link("redis/d1", "localhost")
	require.ErrorContains(t, err, `upstream "localhost": want host:port`)
	_, err = s.Link("redis/d1", "127.0.0.1:0")
	require.ErrorContains(t, err, `port "0" is not a number in 1..65535`)

	p1, err := s.Link("redis/d1", "127.0.0.1:1")
	require.NoError(t, err)
	p2, err := s.Link("redis/d1", "127.0.0.1:1")
	require.NoError(t, err)
	require.Same(t, p1, p2)
	require.Equal(t, "redis/d1", p1.Name())
	require.Regexp(t, `^127\.0\.0\.1:\d+$`, p1.Addr())
	_, err = s.Link("redis/d1", "127.0.0.1:2")
	require.ErrorContains(t, err, "link redis/d1 already proxies 127.0.0.1:1, not 127.0.0.1:2")
}

func TestRemoveUnknownFaultSaysWhatIsActive(t *testing.T) {
	s := newServer(t, 1)
	p, err := s.Link("mysql/d1", "127.0.0.1:1")
	require.NoError(t, err)
	id := added(t, p, Latency{Latency: time.Millisecond})
	require.ErrorContains(t, p.Remove("nope"), `link mysql/d1: no active fault "nope" (active: `+id+`)`)
	_, err = p.Fired(id)
	require.ErrorContains(t, err, "is latency, not a lost-reply fault")
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Empty(t, tally, "a latency fault counts nothing")
	require.NoError(t, p.Remove(id))
	require.ErrorContains(t, p.Remove(id), "(active: none)")
}

func TestClosedServerRefusesLinksAndFaults(t *testing.T) {
	s := newServer(t, 1)
	p, err := s.Link("redis/d1", "127.0.0.1:1")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	_, err = s.Link("redis/d2", "127.0.0.1:1")
	require.ErrorContains(t, err, "closed")
	_, err = p.Add(Down{})
	require.ErrorContains(t, err, "closed")
}

// Bound to a store, a database fault is the one of that store's protocol
// with the same settings; back again, it is what it was. Other faults are
// not store-bound.
func TestStoreBoundFaultsTakeTheStoresProtocol(t *testing.T) {
	for _, c := range []struct{ mysql, postgres Fault }{
		{LostReplyMySQLCommit{Times: 2, Probability: 0.5}, LostReplyPostgresCommit{Times: 2, Probability: 0.5}},
		{CommitHoldMySQL{Times: 3, Hold: time.Second}, CommitHoldPostgres{Times: 3, Hold: time.Second}},
		{SQLError{Probability: 0.1, Store: StoreMySQL}, SQLError{Probability: 0.1, Store: StorePostgres}},
		{SQLReadOnly{Store: StoreMySQL}, SQLReadOnly{Store: StorePostgres}},
	} {
		for _, f := range []Fault{c.mysql, c.postgres} {
			require.Equal(t, c.postgres, f.(StoreBound).OnStore(StorePostgres))
			require.Equal(t, c.mysql, f.(StoreBound).OnStore(StoreMySQL))
		}
		require.Equal(t, StoreMySQL, Protocol(c.mysql))
		require.Equal(t, StorePostgres, Protocol(c.postgres))
	}
	require.Equal(t, LostReplyMySQLCommit{}, LostReplyMySQLCommit{}.OnStore(""), "an empty store is MySQL")
	require.Equal(t, SQLError{}, SQLError{}.OnStore(""))
	for _, f := range All() {
		_, bound := f.(StoreBound)
		require.Equal(t, Protocol(f) == StoreMySQL || Protocol(f) == StorePostgres, bound, "%s", f.Kind())
	}
	require.NoError(t, ValidStore(""))
	require.NoError(t, ValidStore(StorePostgres))
	require.ErrorContains(t, ValidStore("sqlite"), `store "sqlite": want "mysql" or "postgres" (empty means "mysql")`)
}
