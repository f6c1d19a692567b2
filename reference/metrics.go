package reference

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// metrics are the dispatcher's Prometheus series, on a registry of its own.
type metrics struct {
	reg          *prometheus.Registry
	claimed      prometheus.Counter
	published    *prometheus.CounterVec
	failed       *prometheus.CounterVec
	retried      prometheus.Counter
	fencedOut    prometheus.Counter
	recovered    prometheus.Counter
	released     prometheus.Counter
	oldestAge    prometheus.Gauge
	batchSeconds prometheus.Histogram
	breakerState *prometheus.GaugeVec   // by dependency: 0 closed, 1 half-open, 2 open
	openSeconds  *prometheus.CounterVec // by dependency
	probes       *prometheus.CounterVec // by dependency and result
	givenBack    prometheus.Counter
}

// Probe results: the label of outbox_dependency_probes_total.
const (
	probeAnswered = "answered"
	probeNoAnswer = "no_answer"
)

func newMetrics() *metrics {
	m := &metrics{
		reg:       prometheus.NewRegistry(),
		claimed:   counter("outbox_claimed_total", "Outbox events claimed (each claim counts; a re-claim counts again)."),
		published: counterVec("outbox_published_total", "Outbox events closed as published, by how: added, duplicate, deduped, already_dispatched.", "how"),
		failed:    counterVec("outbox_failed_total", "Outbox events closed as failed, by reason.", "reason"),
		retried:   counter("outbox_retried_total", "Transient failures returned to pending with backoff."),
		fencedOut: counter("outbox_fenced_out_total", "Guarded writes that matched nothing: the event was no longer held by this instance."),
		recovered: counter("outbox_recovered_total", "Expired claims returned to pending by lease recovery."),
		released:  counter("outbox_released_total", "Held events handed back to pending without backoff (graceful stop, lease too short)."),
		oldestAge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "outbox_oldest_pending_age_seconds", Help: "How long the oldest due pending event has been due; 0 when none is."}),
		batchSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "outbox_batch_duration_seconds", Help: "Time from the start of a claim to the end of its finalize.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}),
	}
	m.addBreakerSeries()
	m.reg.MustRegister(m.claimed, m.published, m.failed, m.retried, m.fencedOut,
		m.recovered, m.released, m.oldestAge, m.batchSeconds,
		m.breakerState, m.openSeconds, m.probes, m.givenBack)
	return m
}

// counter and counterVec create a counter series without labels or with
// these labels.
func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// addBreakerSeries creates the dependency-health series (doc.go,
// "Dependency health").
func (m *metrics) addBreakerSeries() {
	m.breakerState = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "outbox_dependency_breaker_state", Help: "Breaker state per dependency: 0 closed, 1 half-open, 2 open (the dependency answered nothing)."}, []string{"dependency"})
	m.openSeconds = counterVec("outbox_dependency_open_seconds_total", "Seconds the dependency's breaker has spent open.", "dependency")
	m.probes = counterVec("outbox_dependency_probes_total", "Probes (Redis PING, MySQL ping) sent while a breaker was open, by result: answered, no_answer.", "dependency", "result")
	m.givenBack = counter("outbox_given_back_total", "Held events handed back to pending with their attempt returned, because a dependency answered nothing.")
}

// Stats is a snapshot of the dispatcher's counters since New.
type Stats struct {
	Claimed   int
	Published map[string]int // by how (HowAdded, ...)
	Failed    map[string]int // by reason (Reason...)
	Retried   int
	FencedOut int
	Recovered int
	Released  int
	GivenBack int            // released with the attempt returned: a dependency answered nothing
	Probes    map[string]int // by "<dependency>/<result>"
}

// PublishedTotal sums Published over every how.
func (s Stats) PublishedTotal() int {
	n := 0
	for _, v := range s.Published {
		n += v
	}
	return n
}

// Stats returns the current counters.
func (d *Dispatcher) Stats() Stats {
	m := d.metrics
	return Stats{
		Claimed:   counterValue(m.claimed),
		Published: vecValues(m.published, "how"),
		Failed:    vecValues(m.failed, "reason"),
		Retried:   counterValue(m.retried),
		FencedOut: counterValue(m.fencedOut),
		Recovered: counterValue(m.recovered),
		Released:  counterValue(m.released),
		GivenBack: counterValue(m.givenBack),
		Probes:    probeValues(m.probes),
	}
}

// Registry is the dispatcher's own Prometheus registry.
func (d *Dispatcher) Registry() *prometheus.Registry { return d.metrics.reg }

func counterValue(c prometheus.Counter) int {
	var out dto.Metric
	if err := c.Write(&out); err != nil {
		return 0
	}
	return int(out.GetCounter().GetValue())
}

func vecValues(v *prometheus.CounterVec, label string) map[string]int {
	out := map[string]int{}
	ch := make(chan prometheus.Metric, 16)
	go func() { v.Collect(ch); close(ch) }()
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			continue
		}
		for _, lp := range pb.GetLabel() {
			if lp.GetName() == label {
				out[lp.GetValue()] = int(pb.GetCounter().GetValue())
			}
		}
	}
	return out
}

func probeValues(v *prometheus.CounterVec) map[string]int {
	out := map[string]int{}
	for _, dep := range []string{depRedis, depMySQL} {
		for _, r := range []string{probeAnswered, probeNoAnswer} {
			if c, err := v.GetMetricWithLabelValues(dep, r); err == nil {
				out[dep+"/"+r] = counterValue(c)
			}
		}
	}
	return out
}
