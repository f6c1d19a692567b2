package faultproxy

import (
	"errors"
	"fmt"
	"time"
)

// Latency delays each chunk on the link by Latency plus a seeded uniform
// draw in [-Jitter, +Jitter]. toxiproxy's own latency toxic serves it
// without jitter, the seeded jitter toxic (jitter.go) with it.
type Latency struct {
	Direction Direction // empty means downstream
	// Latency and Jitter are whole milliseconds; Jitter <= Latency.
	Latency, Jitter time.Duration
}

// Kind is "latency".
func (Latency) Kind() Kind { return "latency" }

// String is "latency <Latency>".
func (f Latency) String() string { return withDirection("latency "+f.Latency.String(), f.Direction) }

// Params records direction, latency and jitter.
func (f Latency) Params() map[string]string {
	p := directionParams(f.Direction)
	if f.Latency > 0 {
		p["latency"] = f.Latency.String()
	}
	if f.Jitter > 0 {
		p["jitter"] = f.Jitter.String()
	}
	return p
}

// Validate wants whole milliseconds, a latency, and jitter no larger.
func (f Latency) Validate() error {
	return invalid(f, validDirection(f.Direction),
		wholeMillis("latency", f.Latency), wholeMillis("jitter", f.Jitter), f.validSpread())
}

func (f Latency) validSpread() error {
	if f.Latency == 0 && f.Jitter == 0 {
		return errors.New("latency and jitter are both 0: set Latency")
	}
	if f.Jitter > f.Latency {
		return fmt.Errorf("jitter %v exceeds latency %v: a delay cannot be negative", f.Jitter, f.Latency)
	}
	return nil
}

func (f Latency) apply(id string, seed int64) applied {
	spec := toxicSpec{Name: id, Stream: f.Direction.stream(), Type: "latency",
		Attributes: map[string]int64{"latency": f.Latency.Milliseconds(), "jitter": 0}}
	if f.Jitter != 0 {
		spec.Type = jitterToxicType
		spec.Attributes = &jitterToxic{LatencyNS: int64(f.Latency), JitterNS: int64(f.Jitter), Seed: seed}
	}
	return applied{toxics: []toxicSpec{spec}}
}
