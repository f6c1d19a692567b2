package workload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// CommandProducer writes the workload through the team's own write path: a
// producer command that commits each event through the library's API, in
// its own transaction, and says which outbox row and message id it made.
//
// Protocol (docs/manifests.md, "producer"). The harness writes one JSON
// object per line on the command's stdin:
//
//	{"seq": 17, "topic": "ai-default", "event_type": "ai.job.enqueue", "job_id": "j-ab12-17", "payload": {"jobId": "j-ab12-17"}}
//
// and, for each line in order, reads one line from its stdout once the
// event is committed:
//
//	{"seq": 17, "row": "<the outbox row's primary key as text>", "message_id": "<the id the sink will carry>"}
//
// or {"seq": 17, "error": "..."}, which ends the run's load with that error.
// A binary key is printed in lower-case hex. Anything else on stdout is an
// error; stderr goes to the run's log. The events follow the seeded
// sequence of Producer (its queues and aggregates), but every one is
// valid: poison and held transactions need the harness's own producer.
type CommandProducer struct {
	p   *Producer
	cmd *exec.Cmd
	// Reply bounds the wait for one event's reply line.
	Reply time.Duration
}

// NewCommandProducer validates cfg and returns a producer that runs cmd
// (prepared, not started: supervisor.Command). cfg.DB is not written.
func NewCommandProducer(cfg ProducerConfig, cmd *exec.Cmd) (*CommandProducer, error) {
	if cfg.Hold != (Hold{}) {
		return nil, errors.New("producer command: the scenario holds transactions open (commit-order gaps), which only the harness's own producer can do")
	}
	p, err := NewProducer(cfg)
	if err != nil {
		return nil, err
	}
	p.validOnly = true
	return &CommandProducer{p: p, cmd: cmd, Reply: 30 * time.Second}, nil
}

type commandLine struct {
	Seq       int64           `json:"seq"`
	Topic     string          `json:"topic"`
	EventType string          `json:"event_type"`
	JobID     string          `json:"job_id"`
	Aggregate string          `json:"aggregate,omitempty"`
	Payload   json.RawMessage `json:"payload"`
}

type commandReply struct {
	Seq       int64  `json:"seq"`
	Row       string `json:"row"`
	MessageID string `json:"message_id"`
	Error     string `json:"error"`
}

// Produce starts the command, sends it n events at the configured rate,
// records each once its reply says it committed, then closes its stdin and
// waits for it to exit.
func (c *CommandProducer) Produce(ctx context.Context, n int) (err error) {
	if n < 0 {
		return fmt.Errorf("produce: n is %d; use 0 or more", n)
	}
	in, err := c.cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("producer command: stdin: %w", err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("producer command: stdout: %w", err)
	}
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("producer command %s: %w", c.cmd.Path, err)
	}
	defer func() { err = errors.Join(err, c.finish(in)) }()
	replies := readReplies(out)
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := c.p.pace(ctx, start, i); err != nil {
			return fmt.Errorf("produce event %d of %d: %w", i+1, n, err)
		}
		if err := c.one(ctx, in, replies); err != nil {
			return fmt.Errorf("producer command, event %d of %d: %w", i+1, n, err)
		}
	}
	return nil
}

// one sends the next event and records it when its reply comes.
func (c *CommandProducer) one(ctx context.Context, in io.Writer, replies <-chan replyOrErr) error {
	ev := c.p.plan()
	line, _ := json.Marshal(commandLine{Seq: ev.num, Topic: ev.queue, EventType: ev.eventType, JobID: ev.jobID,
		Aggregate: ev.aggregate, Payload: json.RawMessage(ev.payload)})
	if _, err := in.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write to its stdin: %w (did it exit?)", err)
	}
	timer := time.NewTimer(c.Reply)
	defer timer.Stop()
	var r replyOrErr
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return fmt.Errorf("no reply for seq %d within %s: it must print one JSON line per event once it is committed", ev.num, c.Reply)
	case r = <-replies:
	}
	if r.err != nil {
		return r.err
	}
	e, err := c.event(ev, r.reply)
	if err != nil {
		return err
	}
	c.p.cfg.Recorder.AddEvent(e)
	return nil
}

// event is the recorded event for ev, from the command's reply.
func (c *CommandProducer) event(ev planned, r commandReply) (history.Event, error) {
	switch {
	case r.Seq != ev.num:
		return history.Event{}, fmt.Errorf("reply for seq %d while seq %d was sent: reply in the order of the lines", r.Seq, ev.num)
	case r.Error != "":
		return history.Event{}, fmt.Errorf("seq %d: %s", r.Seq, r.Error)
	case r.Row == "":
		return history.Event{}, fmt.Errorf("seq %d: the reply names no row: print the outbox row's primary key as \"row\"", r.Seq)
	}
	id := ev.num
	e := c.p.event(ev, id)
	e.Row, e.MessageID = r.Row, r.MessageID
	if c.p.cfg.Schema.Outbox.IDType == schema.KeyAuto {
		n, err := strconv.ParseInt(r.Row, 10, 64)
		if err != nil {
			return history.Event{}, fmt.Errorf("seq %d: row %q is not the integer id of an AUTO_INCREMENT key", r.Seq, r.Row)
		}
		e.ID, e.Row = n, ""
	}
	e.Produced = time.Now().UTC()
	return e, nil
}

// finish closes the command's stdin and waits for it to exit.
func (c *CommandProducer) finish(in io.Closer) error {
	_ = in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("producer command exited: %w", err)
		}
		return nil
	case <-time.After(10 * time.Second):
		_ = c.cmd.Cancel()
		<-done
		return errors.New("producer command did not exit within 10s of its stdin closing: it must exit at end of input")
	}
}

type replyOrErr struct {
	reply commandReply
	err   error
}

// readReplies reads the command's stdout, one JSON reply per line.
func readReplies(out io.Reader) <-chan replyOrErr {
	ch := make(chan replyOrErr, 1)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var r commandReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				ch <- replyOrErr{err: fmt.Errorf("its stdout line %q is not a JSON reply: print only {\"seq\": ..., \"row\": ..., \"message_id\": ...} lines there (logs go to stderr)", sc.Text())}
				return
			}
			ch <- replyOrErr{reply: r}
		}
		err := sc.Err()
		if err == nil {
			err = errors.New("it closed its stdout (exited?) before replying")
		}
		ch <- replyOrErr{err: err}
	}()
	return ch
}
