package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
)

// reenableFor bounds the retries to listen again on a link's port after a
// down fault: another process may hold it for a moment.
const reenableFor = 2 * time.Second

// Proxy is one named link (e.g. "mysql/d1", "redis/d1") in front of one
// upstream server. Its address never changes: servers restarted behind it
// are reached again by new connections.
type Proxy struct {
	srv      *Server
	name     string
	upstream string
	addr     string
	tp       *toxiproxy.Proxy
	// statements is the registry key of a PostgreSQL link's statements
	// (pg_statements.go); empty on other links.
	statements string
	// commands is the registry key of a Redis link's command log
	// (redis_commands.go) or a MySQL link's failed statements
	// (mysql_statements.go); empty on other links.
	commands string

	mu     sync.Mutex
	faults map[string]*installed
	order  []string
	down   int
	closed bool
}

// installed is one active fault.
type installed struct {
	kind    Kind
	toxics  []string // toxiproxy names, in the order they were added
	state   any      // applied.state
	release func()   // applied.release, or nil
	down    bool
}

// Addr is the proxy's listen address, "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return p.addr }

// Name is the link's name.
func (p *Proxy) Name() string { return p.name }

// Upstream is the server address behind the proxy.
func (p *Proxy) Upstream() string { return p.upstream }

// Add starts a fault on the link and returns its id for Remove.
func (p *Proxy) Add(f Fault) (string, error) {
	if f == nil {
		return "", fmt.Errorf("link %s: %w", p.name, errNoFault)
	}
	if err := f.Validate(); err != nil {
		return "", fmt.Errorf("link %s: %w", p.name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return "", fmt.Errorf("link %s: the fault proxy server is closed", p.name)
	}
	id, seed := p.srv.newID(), p.srv.seed()
	a := f.apply(id, seed)
	if p.statements != "" {
		withStatements(a.toxics, p.statements)
	}
	inst := &installed{kind: f.Kind(), state: a.state, release: a.release, down: a.down}
	if inst.down {
		p.down++
		if p.down == 1 {
			p.tp.Stop()
		}
	}
	if err := p.addToxics(inst, a.toxics); err != nil {
		inst.releaseState()
		return "", err
	}
	if a.armed != nil {
		a.armed()
	}
	p.faults[id] = inst
	p.order = append(p.order, id)
	return id, nil
}

// releaseState unregisters the fault's shared state, once.
func (inst *installed) releaseState() {
	if inst.release != nil {
		inst.release()
		inst.release = nil
	}
}

// addToxic adds one toxic to tp, the error naming it.
func addToxic(tp *toxiproxy.Proxy, spec toxicSpec) error {
	body, err := spec.json()
	if err == nil {
		_, err = tp.Toxics.AddToxicJson(bytes.NewReader(body))
	}
	if err != nil {
		return fmt.Errorf("add toxic %s: %w", spec.Name, err)
	}
	return nil
}

func (p *Proxy) addToxics(inst *installed, specs []toxicSpec) error {
	for _, spec := range specs {
		body, err := spec.json()
		if err == nil {
			_, err = p.tp.Toxics.AddToxicJson(bytes.NewReader(body))
		}
		if err != nil {
			rollback := p.removeToxics(inst)
			return errors.Join(fmt.Errorf("link %s: add toxic %s (%s): %w", p.name, spec.Name, spec.Type, err), rollback)
		}
		inst.toxics = append(inst.toxics, spec.Name)
	}
	return nil
}

// Remove ends one fault. Connections whose reply a lost-reply fault dropped
// are closed; a down link listens again on the same address.
func (p *Proxy) Remove(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	inst, ok := p.faults[id]
	if !ok {
		return fmt.Errorf("link %s: no active fault %q (active: %s)", p.name, id, p.activeLocked())
	}
	p.forget(id)
	return p.removeLocked(inst)
}

// Heal removes every fault and makes sure the link accepts connections.
func (p *Proxy) Heal() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.healLocked()
}

// Active lists the ids of the link's active faults, oldest first.
func (p *Proxy) Active() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.order...)
}

// Fired says how many replies a lost-reply fault has dropped so far.
func (p *Proxy) Fired(id string) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inst, ok := p.faults[id]
	if !ok {
		return 0, fmt.Errorf("link %s: no active fault %q (active: %s)", p.name, id, p.activeLocked())
	}
	lost, ok := inst.state.(*lostReply)
	if !ok {
		return 0, fmt.Errorf("link %s: fault %s is %s, not a lost-reply fault", p.name, id, inst.kind)
	}
	return lost.firedCount(), nil
}

// Refused says, for a queue-error fault, how many commands it refused and
// how many of their error replies reached the client with its message; for
// a sql-error fault, how many statements it refused and how many errors
// (ERR packets, ErrorResponses) it sent in their place.
func (p *Proxy) Refused(id string) (refused, answered int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inst, ok := p.faults[id]
	if !ok {
		return 0, 0, fmt.Errorf("link %s: no active fault %q (active: %s)", p.name, id, p.activeLocked())
	}
	r, ok := inst.state.(interface{ counts() (int, int) })
	if !ok {
		return 0, 0, fmt.Errorf("link %s: fault %s is %s, not a queue-error or sql-error fault", p.name, id, inst.kind)
	}
	refused, answered = r.counts()
	return refused, answered, nil
}

// Held lists, for a commit-hold fault, the COMMITs it has held so far.
func (p *Proxy) Held(id string) ([]HeldCommit, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inst, ok := p.faults[id]
	if !ok {
		return nil, fmt.Errorf("link %s: no active fault %q (active: %s)", p.name, id, p.activeLocked())
	}
	hold, ok := inst.state.(*commitHold)
	if !ok {
		return nil, fmt.Errorf("link %s: fault %s is %s, not a commit-hold fault", p.name, id, inst.kind)
	}
	return hold.held(), nil
}

// Tally is what a fault's toxics counted so far, keyed as its history
// record names the counts: fired for a lost-reply fault, refused and
// answered for a queue-error or sql-error fault; empty for the others.
func (p *Proxy) Tally(id string) (map[string]int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inst, ok := p.faults[id]
	if !ok {
		return nil, fmt.Errorf("link %s: no active fault %q (active: %s)", p.name, id, p.activeLocked())
	}
	if t, ok := inst.state.(interface{ tally() map[string]int }); ok {
		return t.tally(), nil
	}
	return map[string]int{}, nil
}

func (p *Proxy) healLocked() error {
	var errs []error
	for i := len(p.order) - 1; i >= 0; i-- {
		id := p.order[i]
		errs = append(errs, p.removeLocked(p.faults[id]))
		delete(p.faults, id)
	}
	p.order = nil
	if p.down != 0 && !p.closed {
		p.down = 0
		errs = append(errs, p.enable())
	}
	return errors.Join(errs...)
}

func (p *Proxy) removeLocked(inst *installed) error {
	err := p.removeToxics(inst)
	inst.releaseState()
	if inst.down {
		p.down--
		if p.down == 0 && !p.closed {
			err = errors.Join(err, p.enable())
		}
	}
	return err
}

// removeToxics removes a fault's toxics, the last added first (a lost-reply
// watcher before its dropper).
func (p *Proxy) removeToxics(inst *installed) error {
	var errs []error
	for i := len(inst.toxics) - 1; i >= 0; i-- {
		if err := p.tp.Toxics.RemoveToxic(context.Background(), inst.toxics[i]); err != nil {
			errs = append(errs, fmt.Errorf("link %s: remove toxic %s: %w", p.name, inst.toxics[i], err))
		}
	}
	inst.toxics = nil
	return errors.Join(errs...)
}

// enable listens again on the link's own address.
func (p *Proxy) enable() error {
	deadline := time.Now().Add(reenableFor)
	for {
		err := p.tp.Start()
		if err == nil || errors.Is(err, toxiproxy.ErrProxyAlreadyStarted) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("link %s: listen again on %s after down: %w", p.name, p.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *Proxy) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	err := p.healLocked()
	p.tp.Stop()
	pgStatementSets.unregister(p.statements)
	redisLinkLogs.unregister(p.commands)
	mysqlLinkLogs.unregister(p.commands)
	pgLinkLogs.unregister(p.commands)
	return err
}

func (p *Proxy) forget(id string) {
	delete(p.faults, id)
	for i, v := range p.order {
		if v == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			return
		}
	}
}

func (p *Proxy) activeLocked() string {
	if len(p.order) == 0 {
		return "none"
	}
	ids := append([]string(nil), p.order...)
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}
