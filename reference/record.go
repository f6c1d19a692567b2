package reference

// record counts and logs what a committed finalize wrote, one log line per
// event (published at debug level, the rest at warn).
func (d *Dispatcher) record(b *Batch, fates []fate, rep finalReport) {
	m := d.metrics
	for how, n := range rep.published {
		m.published.WithLabelValues(how).Add(float64(n))
	}
	for reason, n := range rep.failed {
		m.failed.WithLabelValues(reason).Add(float64(n))
	}
	m.retried.Add(float64(rep.retried))
	m.givenBack.Add(float64(rep.givenBack))
	m.released.Add(float64(rep.givenBack))
	m.fencedOut.Add(float64(len(rep.fenced)))
	fenced := make(map[int64]bool, len(rep.fenced))
	for _, id := range rep.fenced {
		fenced[id] = true
	}
	for i, e := range b.Events {
		d.logEvent(e, fates[i], fenced[e.ID])
	}
}

func (d *Dispatcher) logEvent(e Event, f fate, fenced bool) {
	attrs := []any{"event_id", e.ID, "job_id", e.JobID, "attempts", e.Attempts}
	switch {
	case fenced:
		d.log.Warn("fenced out: the event is no longer held by this instance; nothing written",
			append(attrs, "outcome", "fenced_out")...)
	case f.kind == fatePublish:
		d.log.Debug("published", append(attrs, "outcome", "published", "how", f.how)...)
	case f.kind == fateFail:
		d.log.Warn("failed permanently", append(attrs, "outcome", "failed", "reason", f.reason, "error", f.text)...)
	case f.kind == fateRetry && e.Attempts >= d.cfg.MaxAttempts:
		d.log.Warn("failed at the maximum attempts", append(attrs, "outcome", "failed", "reason", ReasonMaxAttempts, "error", f.text)...)
	case f.kind == fateRetry:
		d.log.Warn("transient failure, will retry", append(attrs, "outcome", "retry", "error", f.text)...)
	case f.kind == fateGiveBack:
		d.log.Info("given back: a dependency answered nothing; no attempt spent", append(attrs, "outcome", "given_back", "error", f.text)...)
	}
}
