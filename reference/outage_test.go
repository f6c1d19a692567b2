package reference_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// link is a TCP forwarder to a real server that the test can cut: while
// down it drops every open connection and closes each new one at once, so
// the dispatcher sees a dependency that answers nothing.
type link struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
}

func newLink(t *testing.T, target string) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := &link{ln: ln, target: target}
	go l.accept()
	t.Cleanup(func() { _ = ln.Close(); l.setDown(true) })
	return l
}

func (l *link) addr() string { return l.ln.Addr().String() }

func (l *link) accept() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		down := l.down
		if !down {
			l.conns = append(l.conns, c)
		}
		l.mu.Unlock()
		if down {
			_ = c.Close()
			continue
		}
		go l.forward(c)
	}
}

func (l *link) forward(c net.Conn) {
	up, err := net.Dial("tcp", l.target)
	if err != nil {
		_ = c.Close()
		return
	}
	l.mu.Lock()
	l.conns = append(l.conns, up)
	l.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
	_, _ = io.Copy(c, up)
	_ = c.Close()
}

// setDown cuts (true) or heals (false) the link.
func (l *link) setDown(down bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = down
	if down {
		for _, c := range l.conns {
			_ = c.Close()
		}
		l.conns = nil
	}
}

// redisLink puts a cuttable link in front of the env's Redis.
func (e *env) redisLink() *link {
	return newLink(e.t, e.Redis.Options().Addr)
}

// mysqlLink puts a cuttable link in front of the env's MySQL and returns it
// with a DSN through it.
func (e *env) mysqlLink() (*link, string) {
	cfg, err := mysql.ParseDSN(e.DSN)
	require.NoError(e.t, err)
	l := newLink(e.t, cfg.Addr)
	cfg.Addr = l.addr()
	cfg.Timeout = 200 * time.Millisecond
	return l, cfg.FormatDSN()
}

// healthz is the dispatcher's /healthz, decoded.
type healthz struct {
	Code         int
	Status       string
	Dependencies map[string]struct {
		State, Reason string
		Since         time.Time
	}
}

func (e *env) healthz(d *reference.Dispatcher) healthz {
	code, body := get(e.t, "http://"+d.MetricsAddr()+"/healthz")
	h := healthz{Code: code}
	require.NoError(e.t, json.Unmarshal([]byte(body), &h), body)
	return h
}

// metric reads one sample of the dispatcher's /metrics text.
func (e *env) metric(d *reference.Dispatcher, series string) float64 {
	_, body := get(e.t, "http://"+d.MetricsAddr()+"/metrics")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	require.NotNil(e.t, m, "series %s not in /metrics", series)
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(e.t, err)
	return v
}

// TestRedisOutageOpensTheBreakerAndGivesBackHeldEvents: Redis answers
// nothing for longer than the whole retry budget. The batch in flight is
// given back (pending, no new last_error, its attempt returned), the breaker
// opens, claims stop, probes back off; /healthz says so. No event fails and
// no attempt is spent: once Redis answers, every event is published at its
// first counted attempt and the breaker closes.
func TestRedisOutageOpensTheBreakerAndGivesBackHeldEvents(t *testing.T) {
	e := newEnv(t)
	ids := []int64{e.addValid("job-1"), e.addValid("job-2"), e.addValid("job-3")}
	l := e.redisLink()
	cfg := e.Config("d1")
	cfg.RedisURL = "redis://" + l.addr() + "/0"
	cfg.MaxAttempts = 2 // a dispatcher that spent attempts would fail every event within a second
	cfg.PublishTimeout = 200 * time.Millisecond
	cfg.MetricsAddr = "127.0.0.1:0"
	l.setDown(true)
	d := e.dispatcher(cfg)
	stop := e.run(d)
	e.waitFor("the metrics server", func() bool { return d.MetricsAddr() != "" })

	e.waitFor("the breaker to open and probe twice", func() bool {
		return d.Stats().Probes["redis/no_answer"] >= 2
	})
	h := e.healthz(d)
	require.Equal(t, http.StatusServiceUnavailable, h.Code)
	require.Regexp(t, `^redis answered nothing`, h.Status)
	require.Equal(t, "open", h.Dependencies["redis"].State)
	require.NotEmpty(t, h.Dependencies["redis"].Reason)
	require.Equal(t, "closed", h.Dependencies["mysql"].State)
	require.EqualValues(t, 2, e.metric(d, `outbox_dependency_breaker_state{dependency="redis"}`))
	claimsWhileOpen := d.Stats().Claimed
	time.Sleep(time.Second) // past the retry budget of 2 attempts: an attempt-spending dispatcher fails here
	require.Equal(t, claimsWhileOpen, d.Stats().Claimed, "no claims while the breaker is open")
	for _, id := range ids {
		row := e.event(id)
		require.Equal(t, "pending", row.Status)
		require.Zero(t, row.Attempts, "the attempt was given back")
		require.False(t, row.LastError.Valid, "a give-back is no failure: last_error untouched")
	}

	l.setDown(false)
	e.waitFor("every event published", func() bool {
		return e.Count(`SELECT COUNT(*) FROM outbox_events WHERE status = 'published'`) == len(ids)
	})
	e.waitFor("healthy again", func() bool { return e.healthz(d).Code == http.StatusOK })
	h = e.healthz(d)
	require.Equal(t, "closed", h.Dependencies["redis"].State)
	require.Greater(t, e.metric(d, `outbox_dependency_open_seconds_total{dependency="redis"}`), 1.0)
	require.GreaterOrEqual(t, e.metric(d, `outbox_dependency_probes_total{dependency="redis",result="answered"}`), 1.0)
	stop()

	for _, id := range ids {
		require.Equal(t, 1, e.event(id).Attempts, "one counted attempt: the one that published")
		for _, a := range e.audit(id) {
			if a.OldStatus == "processing" && a.NewStatus == "pending" {
				require.Equal(t, a.OldError, a.NewError, "given back, not failed")
				require.Zero(t, a.Attempts)
			}
		}
	}
	st := d.Stats()
	require.Empty(t, st.Failed)
	require.Zero(t, st.Retried)
	require.GreaterOrEqual(t, st.GivenBack, len(ids))
}

// TestMySQLOutageStopsClaimsAndResumes: MySQL answers nothing. The breaker
// opens (healthz 503), claims stop, nothing fails; events committed during
// the outage are claimed once MySQL answers again and published at their
// first attempt.
func TestMySQLOutageStopsClaimsAndResumes(t *testing.T) {
	e := newEnv(t)
	first := e.addValid("job-before")
	l, dsn := e.mysqlLink()
	cfg := e.Config("d1")
	cfg.MySQLDSN = dsn
	cfg.MaxAttempts = 2
	cfg.MetricsAddr = "127.0.0.1:0"
	d := e.dispatcher(cfg)
	stop := e.run(d)
	e.waitFor("the first event published", func() bool { return e.event(first).Status == "published" })

	l.setDown(true)
	during := []int64{e.addValid("job-during-1"), e.addValid("job-during-2")}
	e.waitFor("the MySQL breaker to open and probe", func() bool { return d.Stats().Probes["mysql/no_answer"] >= 2 })
	h := e.healthz(d)
	require.Equal(t, http.StatusServiceUnavailable, h.Code)
	require.Equal(t, "open", h.Dependencies["mysql"].State)

	l.setDown(false)
	e.waitFor("the events of the outage published", func() bool {
		return e.event(during[0]).Status == "published" && e.event(during[1]).Status == "published"
	})
	e.waitFor("healthy again", func() bool { return e.healthz(d).Code == http.StatusOK })
	require.Equal(t, "closed", e.healthz(d).Dependencies["mysql"].State)
	stop()
	for _, id := range during {
		require.Equal(t, 1, e.event(id).Attempts, "not claimed during the outage")
	}
	require.Empty(t, d.Stats().Failed)
}

// atMaxAttempts makes the next claim of the event its last attempt.
func (e *env) atMaxAttempts(id int64, max int) {
	e.t.Helper()
	_, err := e.DB.Exec(`UPDATE outbox_events SET attempts = ? WHERE id = ?`, max-1, id)
	require.NoError(e.t, err)
}

// TestLastAttemptFindsTheJobAndPublishes: an earlier add landed but its
// reply was lost (the job hash, or only the dedupe record after a consumer
// removed the job, is in Redis), and the last attempt's add gets an error
// reply. Before failing the event, the dispatcher looks for the job, finds
// it and closes the event as published (how = found).
func TestLastAttemptFindsTheJobAndPublishes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	withJob, withRecord := e.addValid("job-hash"), e.addValid("job-record")
	cfg := e.Config("d1")
	e.atMaxAttempts(withJob, cfg.MaxAttempts)
	e.atMaxAttempts(withRecord, cfg.MaxAttempts)
	require.NoError(t, e.Redis.HSet(ctx, jobKey(queueA, "job-hash"), "name", reference.EventTypeEnqueue, "data", `{"jobId":"job-hash"}`).Err())
	require.NoError(t, e.Redis.Set(ctx, "bull:"+queueA+":ocdedupe:job-record", "1", time.Hour).Err())
	e.breakQueue(queueA)
	d := e.dispatcher(cfg)

	n, err := d.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	for _, c := range []struct {
		id  int64
		job string
	}{{withJob, "job-hash"}, {withRecord, "job-record"}} {
		row := e.event(c.id)
		require.Equal(t, "published", row.Status, "job %s exists in Redis: never failed", c.job)
		require.Equal(t, cfg.MaxAttempts, row.Attempts)
		require.Equal(t, "queued", e.JobStatus(c.job))
	}
	require.Equal(t, 2, d.Stats().Published[reference.HowFound])
	require.Empty(t, d.Stats().Failed)

	// Without a job or a record, the same last attempt fails as before.
	none := e.addValid("job-none")
	e.atMaxAttempts(none, cfg.MaxAttempts)
	_, err = d.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, "failed", e.event(none).Status)
	require.Equal(t, 1, d.Stats().Failed[reference.ReasonMaxAttempts])
}

// TestLastAttemptKeepsTheEventWhenRedisAnswersNothing: the last attempt's
// add gets an error reply, and Redis answers nothing when the dispatcher
// looks for the job. Nothing is decided: the event is given back with its
// last attempt unspent, and published once Redis answers.
func TestLastAttemptKeepsTheEventWhenRedisAnswersNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.addValid("job-1")
	l := e.redisLink()
	cfg := e.Config("d1")
	cfg.RedisURL = "redis://" + l.addr() + "/0"
	cfg.PublishTimeout = 200 * time.Millisecond
	e.atMaxAttempts(id, cfg.MaxAttempts)
	e.breakQueue(queueA)
	g := newGate()
	d := e.dispatcher(cfg, reference.WithFailpoints(g.failpoints(t, failpoint.AfterEnqueue)))

	done := make(chan error, 1)
	go func() { _, err := d.Poll(ctx); done <- err }()
	g.waitEntered(t) // the add got its WRONGTYPE reply
	l.setDown(true)
	close(g.open)
	require.NoError(t, <-done)

	row := e.event(id)
	require.Equal(t, "pending", row.Status, "not failed while the job may exist")
	require.Equal(t, cfg.MaxAttempts-1, row.Attempts, "the last attempt is not spent")
	require.Empty(t, d.Stats().Failed)
	require.Equal(t, 1, d.Stats().GivenBack)

	l.setDown(false)
	require.NoError(t, e.Redis.Del(ctx, "bull:"+queueA+":id").Err()) // the queue heals too
	e.waitFor("the event published", func() bool {
		_, err := d.Poll(ctx)
		require.NoError(t, err)
		return e.event(id).Status == "published"
	})
	require.True(t, e.jobExists(queueA, "job-1"))
}
