package faultproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateAcceptsEveryKindWithSensibleFields(t *testing.T) {
	good := []Fault{
		{Kind: Latency, Latency: 100 * time.Millisecond},
		{Kind: Latency, Latency: 100 * time.Millisecond, Jitter: 30 * time.Millisecond, Direction: Upstream},
		{Kind: Blackhole},
		{Kind: Blackhole, Timeout: time.Second, Direction: Downstream},
		{Kind: Reset},
		{Kind: Down},
		{Kind: Bandwidth, Rate: 10},
		{Kind: Slicer, Average: 10, Size: 5, Delay: 100},
		{Kind: LostReplyRedisAdd},
		{Kind: LostReplyMySQLCommit, Times: 3, Probability: 0.5},
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
		{Fault{Kind: "flood"}, `fault kind "flood" is unknown: want one of latency, blackhole`},
		{Fault{}, `fault kind "" is unknown`},
		{Fault{Kind: Latency}, "set Latency"},
		{Fault{Kind: Latency, Latency: -time.Millisecond}, "latency -1ms: want >= 0"},
		{Fault{Kind: Latency, Latency: 1500 * time.Microsecond}, "whole milliseconds"},
		{Fault{Kind: Latency, Latency: time.Millisecond, Jitter: 2 * time.Millisecond}, "jitter 2ms exceeds latency 1ms"},
		{Fault{Kind: Latency, Latency: time.Millisecond, Direction: "sideways"}, `direction "sideways": want "downstream" or "upstream"`},
		{Fault{Kind: Latency, Latency: time.Millisecond, Rate: 5}, "field Rate does not apply to this kind (it takes: Direction, Latency, Jitter)"},
		{Fault{Kind: Blackhole, Timeout: -time.Second}, "timeout -1s: want >= 0"},
		{Fault{Kind: Reset, Latency: time.Second}, "field Latency does not apply"},
		{Fault{Kind: Down, Direction: Upstream}, "field Direction does not apply to this kind (it takes: no fields)"},
		{Fault{Kind: Bandwidth}, "rate 0 KB/s: want > 0"},
		{Fault{Kind: Bandwidth, Rate: -1}, "rate -1 KB/s"},
		{Fault{Kind: Slicer}, "average slice size 0 bytes: want > 0"},
		{Fault{Kind: Slicer, Average: 10, Size: 10}, "size variation 10 bytes: want >= 0 and < average 10"},
		{Fault{Kind: Slicer, Average: 10, Delay: -1}, "delay -1 µs"},
		{Fault{Kind: LostReplyRedisAdd, Times: -1}, "times -1: want >= 0"},
		{Fault{Kind: LostReplyRedisAdd, Probability: 1.5}, "probability 1.5: want within [0, 1]"},
		{Fault{Kind: LostReplyMySQLCommit, Direction: Downstream}, "field Direction does not apply"},
	}
	for _, b := range bad {
		err := b.f.Validate()
		require.Error(t, err, "%+v", b.f)
		require.Contains(t, err.Error(), b.want)
	}
}

func TestAddRejectsAnInvalidFaultNamingTheLink(t *testing.T) {
	s := newServer(t, 1)
	p, err := s.Link("redis/d1", "127.0.0.1:1")
	require.NoError(t, err)
	_, err = p.Add(Fault{Kind: Bandwidth})
	require.ErrorContains(t, err, "link redis/d1: fault bandwidth: rate 0 KB/s")
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
	id := added(t, p, Fault{Kind: Latency, Latency: time.Millisecond})
	require.ErrorContains(t, p.Remove("nope"), `link mysql/d1: no active fault "nope" (active: `+id+`)`)
	_, err = p.Fired(id)
	require.ErrorContains(t, err, "is latency, not a lost-reply fault")
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
	_, err = p.Add(Fault{Kind: Down})
	require.ErrorContains(t, err, "closed")
}
