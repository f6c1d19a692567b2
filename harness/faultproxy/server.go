package faultproxy

import (
	"errors"
	"fmt"
	"math/rand"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Server is an embedded toxiproxy holding named links. Its API server is
// never started (it has no shutdown and exits the process on errors).
type Server struct {
	api *toxiproxy.ApiServer

	mu      sync.Mutex
	rng     *rand.Rand
	proxies map[string]*Proxy
	nextID  int
	closed  bool
	// commands is the command log of the Redis links (redis_commands.go).
	commands commandLogState
}

// NewServer returns a server whose random choices all come from rng, the
// run's seeded randomness, so a run is reproducible by its seed. A nil rng
// is a programming error and panics at startup.
func NewServer(rng *rand.Rand) *Server {
	if rng == nil {
		panic("faultproxy.NewServer: nil *rand.Rand: pass the run's seeded randomness")
	}
	metrics := toxiproxy.NewMetricsContainer(prometheus.NewRegistry())
	return &Server{
		api:     toxiproxy.NewServer(metrics, zerolog.Nop()),
		rng:     rng,
		proxies: map[string]*Proxy{},
	}
}

// Link returns the proxy named name in front of upstream ("host:port"),
// starting it on a free 127.0.0.1 port the first time. Asking again for
// the same name and upstream returns the same proxy. A link whose
// dependency (the name up to '/') is "postgres" follows its clients'
// prepared statements from its first connection on (doc.go).
func (s *Server) Link(name, upstream string) (*Proxy, error) {
	if err := validateLinkName(name); err != nil {
		return nil, err
	}
	if err := validateUpstream(upstream); err != nil {
		return nil, fmt.Errorf("link %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("link %s: the fault proxy server is closed", name)
	}
	if p, ok := s.proxies[name]; ok {
		if p.upstream != upstream {
			return nil, fmt.Errorf("link %s already proxies %s, not %s: use another name", name, p.upstream, upstream)
		}
		return p, nil
	}
	tp := toxiproxy.NewProxy(s.api, name, "127.0.0.1:0", upstream)
	var statements string
	if isPostgresLink(name) {
		key, err := followStatements(tp)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", name, err)
		}
		statements = key
	}
	var commands string
	switch {
	case isRedisLink(name):
		key, err := followCommands(tp, name, &s.commands)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", name, err)
		}
		commands = key
	case isMySQLLink(name):
		key, err := followStatementFailures(tp, name, &s.commands)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", name, err)
		}
		commands = key
	case isPostgresLink(name):
		key, err := followPGFailures(tp, name, statements, &s.commands)
		if err != nil {
			pgStatementSets.unregister(statements)
			return nil, fmt.Errorf("link %s: %w", name, err)
		}
		commands = key
	}
	if err := tp.Start(); err != nil {
		pgStatementSets.unregister(statements)
		redisLinkLogs.unregister(commands)
		mysqlLinkLogs.unregister(commands)
		pgLinkLogs.unregister(commands)
		return nil, fmt.Errorf("link %s: listen on 127.0.0.1: %w", name, err)
	}
	p := &Proxy{srv: s, name: name, upstream: upstream, addr: tp.Listen, tp: tp, faults: map[string]*installed{}, statements: statements, commands: commands}
	s.proxies[name] = p
	return p, nil
}

// HealAll heals every link.
func (s *Server) HealAll() error {
	var errs []error
	for _, p := range s.snapshot() {
		errs = append(errs, p.Heal())
	}
	return errors.Join(errs...)
}

// Close removes every fault, stops every proxy and closes every connection
// through it. It is idempotent; links cannot be made afterwards.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	var errs []error
	for _, p := range s.snapshot() {
		errs = append(errs, p.close())
	}
	return errors.Join(errs...)
}

// snapshot lists the proxies in name order.
func (s *Server) snapshot() []*Proxy {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Proxy, 0, len(s.proxies))
	for _, p := range s.proxies {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// seed draws a seed for one fault's own generator.
func (s *Server) seed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Int63()
}

func (s *Server) newID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return "f" + strconv.Itoa(s.nextID)
}

func validateLinkName(name string) error {
	if name == "" {
		return errors.New("link name is empty: name it after its dependency and slot, e.g. \"redis/d1\"")
	}
	if strings.IndexFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return fmt.Errorf("link name %q has whitespace or control characters", name)
	}
	return nil
}

func validateUpstream(upstream string) error {
	host, port, err := net.SplitHostPort(upstream)
	if err != nil {
		return fmt.Errorf("upstream %q: want host:port: %w", upstream, err)
	}
	if host == "" {
		return fmt.Errorf("upstream %q: host is empty", upstream)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("upstream %q: port %q is not a number in 1..65535", upstream, port)
	}
	return nil
}
