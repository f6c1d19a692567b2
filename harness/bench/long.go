package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The long memory check's shape.
const (
	longInstances  = 2
	longChunk      = 5000            // events per producer transaction batch
	longBacklog    = 50_000          // the producer waits while more are pending
	longSampleGap  = 2 * time.Second // RSS sampling period
	flatGrowthMax  = 1.2             // second-half peak / first-half peak
	longMinSamples = 4
)

// LongResult is the memory-flat check: LongEvents through two reference
// instances, fed while they run, with each instance's VmRSS sampled.
type LongResult struct {
	Events    int
	Instances int
	Elapsed   time.Duration
	EPS       float64
	Samples   []RSSSample
	// FirstMB, LastMB and PeakMB are over instances' largest RSS per sample.
	FirstMB, LastMB, PeakMB float64
	// Growth is the peak over the second half of the samples divided by the
	// peak over the first half; Flat is Growth <= 1.2.
	Growth float64
	Flat   bool
}

// RSSSample is one sampling of every instance.
type RSSSample struct {
	At        time.Duration // since the instances started
	Published int           // events published by then
	RSSMB     []float64     // per instance
}

// Summary is one line of the result.
func (l LongResult) Summary() string {
	s := fmt.Sprintf("%s events through %d instances in %s (%s events/s); largest instance RSS first %.1f MB, last %.1f MB, peak %.1f MB over %d samples",
		num(float64(l.Events)), l.Instances, l.Elapsed.Round(time.Second), num(l.EPS), l.FirstMB, l.LastMB, l.PeakMB, len(l.Samples))
	if len(l.Samples) < longMinSamples {
		return s + fmt.Sprintf("; too few samples to judge (at least %d are needed)", longMinSamples)
	}
	return s + fmt.Sprintf("; second-half peak / first-half peak = %.2f (flat when <= %.1f)", l.Growth, flatGrowthMax)
}

func (r *runner) runLong(ctx context.Context) (res LongResult, err error) {
	res = LongResult{Events: r.cfg.LongEvents, Instances: longInstances}
	c, err := r.srv.newCase(ctx, "long")
	if err != nil {
		return res, err
	}
	defer r.dropCase(c)
	f, err := startFleet(ctx, r.cfg.Reference, r.logDir("long"), r.srv.contractEnv(c, r.cfg), longInstances)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, f.stop()) }()
	r.log("long: %d events through %d instances, RSS sampled every %s", res.Events, longInstances, longSampleGap)
	start := time.Now()
	if res.Samples, err = r.feedAndSample(ctx, c, f, start); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	res.EPS = float64(res.Events) / res.Elapsed.Seconds()
	res.judge()
	r.log("long: %s", res.Summary())
	return res, nil
}

// feedAndSample feeds the events in chunks, keeping the backlog bounded,
// and samples RSS every longSampleGap until every event is published.
func (r *runner) feedAndSample(ctx context.Context, c *caseDB, f *fleet, start time.Time) ([]RSSSample, error) {
	var samples []RSSSample
	produced, chunk := 0, 0
	nextSample := start.Add(longSampleGap) // a process just started has not reached its working size

	for {
		open, err := openEvents(ctx, c)
		if err != nil {
			return samples, err
		}
		done := produced == r.cfg.LongEvents && open == 0
		if done || time.Now().After(nextSample) {
			s, err := sampleRSS(f, time.Since(start), produced-open)
			if err != nil {
				return samples, err
			}
			samples = append(samples, s)
			nextSample = nextSample.Add(longSampleGap)
			if len(samples)%10 == 0 {
				r.log("long: %d of %d published, RSS per instance %s MB", s.Published, r.cfg.LongEvents, mbList(s.RSSMB))
			}
		}
		if done {
			return samples, nil
		}
		if produced < r.cfg.LongEvents && open < longBacklog {
			n := min(longChunk, r.cfg.LongEvents-produced)
			if err := c.preload(ctx, fmt.Sprintf("long%d", chunk), n); err != nil {
				return samples, err
			}
			produced, chunk = produced+n, chunk+1
			continue
		}
		if err := f.alive(); err != nil {
			return samples, err
		}
		select {
		case <-ctx.Done():
			return samples, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// openEvents counts pending and processing events (a short range of the
// claim index, cheap however many are published).
func openEvents(ctx context.Context, c *caseDB) (int, error) {
	var n int
	err := c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox_events WHERE status IN ('pending', 'processing')").Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count open events: %w", err)
	}
	return n, nil
}

func sampleRSS(f *fleet, at time.Duration, published int) (RSSSample, error) {
	us, err := f.usage()
	if err != nil {
		return RSSSample{}, err
	}
	s := RSSSample{At: at, Published: published}
	for _, u := range us {
		s.RSSMB = append(s.RSSMB, float64(u.RSSKB)/1024)
	}
	return s, nil
}

// judge fills the summary numbers and the verdict.
func (l *LongResult) judge() {
	if len(l.Samples) == 0 {
		return
	}
	largest := make([]float64, len(l.Samples))
	for i, s := range l.Samples {
		for _, v := range s.RSSMB {
			largest[i] = max(largest[i], v)
		}
		l.PeakMB = max(l.PeakMB, largest[i])
	}
	l.FirstMB, l.LastMB = largest[0], largest[len(largest)-1]
	if len(largest) < longMinSamples {
		return // too short to judge: Flat stays false
	}
	half := len(largest) / 2
	first, second := peak(largest[:half]), peak(largest[half:])
	l.Growth = second / first
	l.Flat = l.Growth <= flatGrowthMax
}

func peak(vs []float64) float64 {
	p := 0.0
	for _, v := range vs {
		p = max(p, v)
	}
	return p
}

// writeLong renders the long check with up to 12 evenly spaced samples.
func writeLong(b *strings.Builder, l LongResult) {
	b.WriteString("## Memory over a long run\n\n")
	fmt.Fprintf(b, "%s.\n\n| at | published | RSS per instance (MB) |\n|---|---|---|\n", l.Summary())
	step := max(1, len(l.Samples)/12)
	for i := 0; i < len(l.Samples); i += step {
		s := l.Samples[i]
		fmt.Fprintf(b, "| %s | %d | %s |\n", s.At.Round(time.Second), s.Published, mbList(s.RSSMB))
	}
	b.WriteString("\n")
}

func mbList(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%.1f", v)
	}
	return strings.Join(parts, ", ")
}
