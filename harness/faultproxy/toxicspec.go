package faultproxy

import (
	"encoding/json"
	"fmt"
)

// toxicSpec is one toxic as toxiproxy's JSON API describes it. Toxicity is
// always 1: toxiproxy draws it from global randomness, so every random
// choice is made here, from the run's seed, instead.
type toxicSpec struct {
	Name, Type, Stream string
	Attributes         any
}

func (t toxicSpec) json() ([]byte, error) {
	b, err := json.Marshal(struct {
		Name       string  `json:"name"`
		Type       string  `json:"type"`
		Stream     string  `json:"stream"`
		Toxicity   float32 `json:"toxicity"`
		Attributes any     `json:"attributes"`
	}{t.Name, t.Type, t.Stream, 1.0, t.Attributes})
	if err != nil {
		return nil, fmt.Errorf("encode toxic %s: %w", t.Name, err)
	}
	return b, nil
}

// plainToxics maps a fault that needs no shared state onto its toxics. seed
// feeds the seeded toxics (jitter, sliced variation).
func plainToxics(id string, f Fault, seed int64) []toxicSpec {
	spec := toxicSpec{Name: id, Stream: f.direction()}
	switch f.Kind {
	case Latency:
		spec.Type, spec.Attributes = latencyToxic(f, seed)
	case Blackhole:
		spec.Type = "timeout"
		spec.Attributes = map[string]int64{"timeout": f.Timeout.Milliseconds()}
	case Reset:
		spec.Type = "reset_peer"
		spec.Attributes = map[string]int64{"timeout": f.Timeout.Milliseconds()}
	case Bandwidth:
		spec.Type = "bandwidth"
		spec.Attributes = map[string]int64{"rate": int64(f.Rate)}
	case Slicer:
		spec.Type, spec.Attributes = slicerToxic(f, seed)
	default:
		return nil
	}
	return []toxicSpec{spec}
}

// latencyToxic uses toxiproxy's own latency toxic when there is no jitter,
// and the seeded jitter toxic otherwise.
func latencyToxic(f Fault, seed int64) (string, any) {
	if f.Jitter == 0 {
		return "latency", map[string]int64{"latency": f.Latency.Milliseconds(), "jitter": 0}
	}
	return jitterToxicType, &jitterToxic{
		LatencyNS: int64(f.Latency), JitterNS: int64(f.Jitter), Seed: seed,
	}
}

// slicerToxic uses toxiproxy's slicer when slices are all the same size, and
// the seeded slicer when they vary.
func slicerToxic(f Fault, seed int64) (string, any) {
	if f.Size == 0 {
		return "slicer", map[string]int{"average_size": f.Average, "size_variation": 0, "delay": f.Delay}
	}
	return slicerToxicType, &seededSlicer{
		Average: f.Average, Variation: f.Size, DelayMicros: f.Delay, Seed: seed,
	}
}

// lostReplyToxics maps a lost-reply fault onto its two toxics: the reply
// dropper first (downstream) so that it is on every connection before the
// request watcher (upstream) can fire.
func lostReplyToxics(id string, kind Kind, key string) []toxicSpec {
	attrs := map[string]string{"fault": key}
	watch, drop := redisWatchToxicType, redisDropToxicType
	if kind == LostReplyMySQLCommit {
		watch, drop = mysqlWatchToxicType, mysqlDropToxicType
	}
	return []toxicSpec{
		{Name: id + "-drop", Type: drop, Stream: Downstream, Attributes: attrs},
		{Name: id + "-watch", Type: watch, Stream: Upstream, Attributes: attrs},
	}
}

// queueErrorToxics maps a queue-error fault onto its two toxics: the reply
// rewriter first (downstream), so that it is on every connection before
// the refuser (upstream) replaces a command.
func queueErrorToxics(id, key string) []toxicSpec {
	attrs := map[string]string{"fault": key}
	return []toxicSpec{
		{Name: id + "-rewrite", Type: redisRewriteToxicType, Stream: Downstream, Attributes: attrs},
		{Name: id + "-refuse", Type: redisRefuseToxicType, Stream: Upstream, Attributes: attrs},
	}
}

// sqlErrorToxics maps a sql-error fault onto its two toxics: the answerer
// first (downstream), so that it is on every connection before the refuser
// (upstream) replaces a statement.
func sqlErrorToxics(id, key string) []toxicSpec {
	attrs := map[string]string{"fault": key}
	return []toxicSpec{
		{Name: id + "-answer", Type: mysqlAnswerToxicType, Stream: Downstream, Attributes: attrs},
		{Name: id + "-refuse", Type: mysqlRefuseToxicType, Stream: Upstream, Attributes: attrs},
	}
}
