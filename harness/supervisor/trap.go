package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// FaultWindowTrap is the history fault kind of a window trap.
const FaultWindowTrap = history.FaultWindowTrap

// Hit is a job creation that springs a window trap: the ai_jobs id it was
// matched to, and what the caller knows of it (event ids, BullMQ id, when it
// was seen), recorded among the trap's fault params.
type Hit struct {
	Job    string
	Params map[string]string
}

// Trap is what one window trap did.
type Trap struct {
	Slot     string
	Instance string // the instance killed in the window
	JobID    string // the job whose creation sprang the trap
	FaultID  int    // the history fault window
	Start    time.Time
	End      time.Time
}

// TrapWindow traps the crash window of a black-box dispatcher from outside.
// It waits for the first Hit on jobCreated (the caller sends only jobs
// created by this slot's instance: those whose event it holds), then at
// once freezes the instance (SIGSTOP), blackholes its MySQL link with
// blackholeMySQL (so a finalize still in flight cannot land), SIGKILLs it,
// and heals the link. The whole trap is one "window-trap" fault window in
// the history. It returns an error when ctx ends, jobCreated closes or the
// instance exits before a job shows up; the link is healed whatever fails
// after the blackhole.
func (s *Supervisor) TrapWindow(ctx context.Context, slotID string, jobCreated <-chan Hit,
	blackholeMySQL func() (heal func() error, err error)) (Trap, error) {
	if jobCreated == nil || blackholeMySQL == nil {
		return Trap{}, fmt.Errorf("window trap %s: give a job channel and a blackhole function", slotID)
	}
	p, err := s.alive(slotID)
	if err != nil {
		return Trap{}, fmt.Errorf("window trap: %w", err)
	}
	hit, err := awaitJob(ctx, p, jobCreated)
	if err != nil {
		return Trap{}, fmt.Errorf("window trap %s: %w", p.ID, err)
	}
	job := hit.Job
	t := Trap{Slot: slotID, Instance: p.ID, JobID: job, Start: time.Now().UTC()}
	if s.rec != nil {
		params := map[string]string{}
		for k, v := range hit.Params {
			params[k] = v
		}
		params["job"], params["slot"], params["link"] = job, slotID, "mysql/"+p.ID
		t.FaultID = s.rec.StartFault(history.Fault{Kind: FaultWindowTrap, Target: p.ID, Start: t.Start, Params: params})
	}
	err = s.spring(p, job, blackholeMySQL)
	t.End = time.Now().UTC()
	if s.rec != nil {
		s.rec.EndFault(t.FaultID, t.End)
	}
	if err != nil {
		return t, fmt.Errorf("window trap %s job %s: %w", p.ID, job, err)
	}
	return t, nil
}

func awaitJob(ctx context.Context, p *Proc, jobCreated <-chan Hit) (Hit, error) {
	select {
	case hit, ok := <-jobCreated:
		if !ok {
			return Hit{}, errors.New("job channel closed before any job was created")
		}
		return hit, nil
	case <-p.done:
		return Hit{}, fmt.Errorf("instance exited before any job was created: %s", p.exit)
	case <-ctx.Done():
		return Hit{}, fmt.Errorf("wait for a created job: %w", ctx.Err())
	}
}

// spring freezes, cuts, kills and heals.
func (s *Supervisor) spring(p *Proc, job string, blackholeMySQL func() (func() error, error)) error {
	detail := "window-trap job " + job
	var errs []error
	if err := s.stop(p, detail); err != nil {
		errs = append(errs, err)
	}
	heal, bhErr := blackholeMySQL()
	if bhErr == nil && heal == nil {
		bhErr = errors.New("the blackhole function returned no heal function")
	}
	if bhErr != nil {
		errs = append(errs, fmt.Errorf("blackhole mysql link: %w", bhErr))
	}
	if err := s.kill(p, CauseKill, detail); err != nil {
		errs = append(errs, err)
	}
	if bhErr == nil {
		if err := heal(); err != nil {
			errs = append(errs, fmt.Errorf("heal mysql link: %w", err))
		}
	}
	return errors.Join(errs...)
}
