package manifest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/sink"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

var sinkKinds = map[string]string{"": history.SinkBullMQ, "bullmq": history.SinkBullMQ,
	"redis-stream": history.SinkStream, "redis-list": history.SinkList}

// sinkShape checks the sink's kind, its message fields and the end a list
// is pushed onto (sink.Config; its keys are the queues).
func (l *loader) sinkShape(r rawSink) sink.Config {
	kind, ok := sinkKinds[r.Kind]
	if !ok {
		l.ps.add("sink.kind", "use bullmq, redis-stream or redis-list", "sink kind %q is not known", r.Kind)
	}
	s := sink.Config{Kind: kind, MessageID: strings.TrimSpace(r.MessageID), Payload: strings.TrimSpace(r.Payload), Push: r.Push}
	switch {
	case r.Push != "" && kind != history.SinkList:
		l.ps.add("sink.push", "drop push: it says which end of a Redis list the dispatcher pushes onto", "push is for redis-list sinks")
	case r.Push != "" && r.Push != sink.PushLeft && r.Push != sink.PushRight:
		l.ps.add("sink.push", "use left (LPUSH, the default) or right (RPUSH)", "push %q is not an end of a list", r.Push)
	}
	if kind == history.SinkBullMQ {
		if s.MessageID != "" || s.Payload != "" {
			l.ps.add("sink.message_id", "drop message_id and payload: a BullMQ job's id is its jobId and its payload is its data",
				"message_id and payload are for redis-stream and redis-list sinks")
		}
		return s
	}
	if r.Prefix != "" {
		l.ps.add("sink.prefix", "drop prefix: a "+r.Kind+" sink uses each queue name as its key", "prefix is for BullMQ sinks")
	}
	return s
}

// delivery checks the delivery promise.
func (l *loader) delivery(d string) string {
	switch d {
	case "", "exactly-once-effect":
		return history.DeliveryExactlyOnce
	case history.DeliveryAtLeastOnce:
		return history.DeliveryAtLeastOnce
	}
	l.ps.add("delivery", "use exactly-once-effect (the default: each job created once) or at-least-once (duplicates under the message's own id are allowed)",
		"delivery %q is not known", d)
	return history.DeliveryExactlyOnce
}

// producerCommand is the team's own write path: a command and the
// variables it gets on top of the contract's.
type producerCommand struct {
	command
	env []envEntry
}

// producer checks the producer command: like start, its args and env may
// name the contract's variables.
func (l *loader) producer(r *rawProducer, hasBuild bool) *producerCommand {
	p := &producerCommand{command: command{dir: l.directory("producer.dir", r.Dir)}}
	p.program = l.program("producer.command", r.Command, p.dir, hasBuild)
	for i, arg := range r.Args {
		p.args = append(p.args, checkText(l.ps, startScope(), fmt.Sprintf("producer.args[%d]", i), arg))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Env)) {
		field := "producer.env." + k
		if !validEnvName(k) {
			l.ps.add(field, "use letters, digits and '_', not starting with a digit", "%q is not an environment variable name", k)
			continue
		}
		p.env = append(p.env, envEntry{key: k, value: checkText(l.ps, startScope(), field, r.Env[k])})
	}
	return p
}

// ProducerSpec is how to start the team's producer command with the
// contract variables contract (its database DSN and URL direct, not through
// the fault proxy); ok is false when the manifest names none and the
// harness's own producer writes the events.
func (a *Adapter) ProducerSpec(contract map[string]string) (spec supervisor.Spec, ok bool, err error) {
	if a.producer == nil {
		return supervisor.Spec{}, false, nil
	}
	a.mu.Lock()
	work := a.workDir
	a.mu.Unlock()
	if work == "" {
		return supervisor.Spec{}, true, errors.New("manifest adapter " + a.name + ": Prepare has not run: call it before starting the producer")
	}
	vars := maps.Clone(contract)
	if vars == nil {
		vars = map[string]string{}
	}
	vars[VarWorkDir], vars[VarManifestDir] = work, a.dir
	env := maps.Clone(contract)
	for _, e := range a.producer.env {
		env[e.key] = e.value.expand(vars)
	}
	return supervisor.Spec{Path: a.producer.resolve(vars), Args: a.producer.expandArgs(vars), Dir: a.producer.dir,
		Env: supervisor.HarnessEnviron(env)}, true, nil
}

// storeName checks the store the outbox lives in.
func (l *loader) storeName(s string) string {
	switch s {
	case "", "mysql", "mariadb":
		return "mysql"
	case "postgres", "postgresql":
		return "postgres"
	}
	l.ps.add("store", "use mysql (MySQL or MariaDB, the default) or postgres", "store %q is not known", s)
	return "mysql"
}

// StoreName is the store the outbox lives in: "mysql" or "postgres".
func (a *Adapter) StoreName() string { return a.store }

// SinkKind is the sink's kind (history.SinkBullMQ, SinkStream, SinkList).
func (a *Adapter) SinkKind() string { return a.sink.Kind }

// SinkConfig is the stream or list sink the manifest describes, its keys
// the queues (empty when the manifest lets the harness choose them); its
// Kind is SinkKind's.
func (a *Adapter) SinkConfig() sink.Config {
	c := a.sink
	c.Keys = slices.Clone(a.queues)
	return c
}

// Delivery is the delivery promise (history.DeliveryExactlyOnce or
// DeliveryAtLeastOnce).
func (a *Adapter) Delivery() string { return a.delivery }
