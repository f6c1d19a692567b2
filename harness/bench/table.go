package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// publish prints the report to Out and writes it to File.
func (r *runner) publish(rep *Report) error {
	md := Markdown(*rep)
	if _, err := io.WriteString(r.cfg.Out, "\n"+md); err != nil {
		return fmt.Errorf("print report: %w", err)
	}
	if r.cfg.File == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(r.cfg.File), 0o755); err != nil {
		return fmt.Errorf("report folder: %w", err)
	}
	if err := os.WriteFile(r.cfg.File, []byte(md), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// Markdown renders the report: header, table, notes, goals, and the long
// check and profile when present.
func Markdown(rep Report) string {
	var b strings.Builder
	writeHeader(&b, rep)
	writeTable(&b, rep)
	writeNotes(&b, rep)
	writeLatency(&b, rep)
	writeGoals(&b, rep)
	if rep.Long != nil {
		writeLong(&b, *rep.Long)
	}
	if rep.Profile != nil {
		writeProfile(&b, *rep.Profile)
	}
	return b.String()
}

func writeHeader(b *strings.Builder, rep Report) {
	m := rep.Machine
	fmt.Fprintf(b, "# outboxchaos benchmark\n\n")
	fmt.Fprintf(b, "Run %s (took %s) on `%s`, %s, %d cores; MariaDB %s, Redis %s, %s.  \n",
		rep.Started.Format("2006-01-02 15:04 MST"), rep.Ended.Sub(rep.Started).Round(time.Second),
		m.Uname, m.CPUModel, m.Cores, m.MariaDB, m.Redis, m.Go)
	fmt.Fprintf(b, "Load average (1, 5, 15 min) at start %s, at end %s: the machine is shared, so absolute numbers move between runs; the ratios are from one run.\n\n", m.LoadStart, m.LoadEnd)
	if rep.Command != "" {
		fmt.Fprintf(b, "Reproduce: `%s`\n\n", rep.Command)
	}
	for _, t := range rep.Tuning {
		fmt.Fprintf(b, "- %s\n", t)
	}
	b.WriteString("\n")
}

func writeTable(b *strings.Builder, rep Report) {
	designs := rep.rowsOf(KindDesign)
	floor := rep.Row(KindFloor)
	cols := []string{"dispatcher", "events", "seconds", "events/s", "rounds (events/s)", "/ floor"}
	for _, d := range designs {
		cols = append(cols, "x "+designName(d))
	}
	cols = append(cols, "p50", "p99", "max", "SQL stmts/event", "Redis cmds/event",
		"CPU s/10k", "peak RSS MB", "mariadbd CPU s/10k", "redis CPU s/10k", "cores busy", "machine cores busy")
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, row := range rep.Rows {
		cells := []string{row.Name, eventsCell(row), fmt.Sprintf("%.2f", row.Elapsed.Seconds()), num(row.EPS), roundsCell(row), ratio(row.EPS, floor)}
		for _, d := range designs {
			cells = append(cells, ratio(row.EPS, &d))
		}
		cells = append(cells, latencyCells(row.Latency)...)
		cells = append(cells, fmt.Sprintf("%.3f", row.SQLPerEvent), fmt.Sprintf("%.2f", row.RedisPerEvent),
			fmt.Sprintf("%.2f", row.CPUPer10k), rssCell(row), fmt.Sprintf("%.2f", row.MariaDBCPUPer10k),
			fmt.Sprintf("%.2f", row.RedisCPUPer10k), fmt.Sprintf("%.2f", row.CoresBusy), fmt.Sprintf("%.2f", row.MachineBusy))
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	b.WriteString("\n")
}

// designName is a design row's name without its instance count.
func designName(row Row) string {
	name, _, _ := strings.Cut(row.Name, " x")
	return name
}

func eventsCell(row Row) string {
	if row.Capped {
		return fmt.Sprintf("%s of %s (capped)", num(float64(row.Published)), num(float64(row.Preloaded)))
	}
	return num(float64(row.Published))
}

func roundsCell(row Row) string {
	if len(row.RoundEPS) < 2 {
		return "-"
	}
	var parts []string
	for _, v := range row.RoundEPS {
		parts = append(parts, num(v))
	}
	return strings.Join(parts, " / ")
}

func ratio(eps float64, of *Row) string {
	if of == nil || of.EPS == 0 {
		return "-"
	}
	r := eps / of.EPS
	if r >= 10 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

func latencyCells(l *Latency) []string {
	if l == nil {
		return []string{"-", "-", "-"}
	}
	return []string{ms(l.P50), ms(l.P99), ms(l.Max)}
}

func rssCell(row Row) string {
	if row.Kind == KindFloor {
		return "n/a (in-process)"
	}
	return fmt.Sprintf("%.1f", row.PeakRSSMB)
}

func writeNotes(b *strings.Builder, rep Report) {
	b.WriteString("Notes:\n\n")
	notes := []string{
		"events/s: events published / (last published_at - the database clock when the dispatchers were started), process start-up included.",
		"/ floor and x <design>: this row's events/s divided by that row's.",
		"p50, p99, max: published_at - created_at per event (both DATETIME(6) on the database clock; created_at is the INSERT, a little before the COMMIT) at the offered load, with the same instances running.",
		"SQL stmts/event: the server's Questions counter over the saturation window, less the harness's own statements, per event published.",
		"Redis cmds/event: INFO total_commands_processed over the same window, per event. The dispatchers expose no round-trip count, so these are commands, including those a Lua script runs, NOT round trips (a pipelined batch add is one round trip).",
		"CPU s/10k: utime + stime of the dispatcher processes (/proc/<pid>/stat, all instances) per 10,000 events; peak RSS: the largest VmHWM of one instance, read before it stopped.",
		"mariadbd and redis CPU: the servers' own CPU over the window; cores busy: dispatchers + both servers' CPU / elapsed; machine cores busy: every program on the machine (/proc/stat) over the same window, the difference being other programs and the harness.",
	}
	for _, row := range rep.Rows {
		if row.About != "" {
			notes = append(notes, fmt.Sprintf("%s: %s.", row.Name, row.About))
		}
		if row.Capped {
			notes = append(notes, fmt.Sprintf("%s was stopped at the cap; its rate is what it published by then.", row.Name))
		}
	}
	for _, n := range notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
	b.WriteString("\n")
}

// writeLatency splits each reference row's latency at the claim.
func writeLatency(b *strings.Builder, rep Report) {
	b.WriteString("## Latency split at the claim\n\n")
	b.WriteString("wait = commit to claim (the event waits for a poll), work = claim to published (the batch's claim, jobs query, add and finalize). " +
		"The claim time is recorded by a trigger the benchmark adds for this phase only.\n\n")
	fmt.Fprintf(b, "slow seconds: seconds (by commit time) holding an event over %s, of all seconds of the phase. "+
		"Cores busy: the whole machine's, and this benchmark's own (instances, servers, the harness running the producers), during the phase.\n\n", latencyGoal)
	b.WriteString("| dispatcher | offered/s | committed/s | events | p50 | p99 | max | wait p50 | wait p99 | work p50 | work p99 | slow seconds | machine cores busy | ours |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range rep.Rows {
		l := row.Latency
		if l == nil {
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d of %d | %.2f | %.2f |\n", row.Name, num(l.Offered), num(l.Achieved), num(float64(l.Events)),
			ms(l.P50), ms(l.P99), ms(l.Max), ms(l.WaitP50), ms(l.WaitP99), ms(l.WorkP50), ms(l.WorkP99), l.SlowSeconds, l.Seconds, l.MachineBusy, l.OursBusy)
	}
	b.WriteString("\n")
}

func writeGoals(b *strings.Builder, rep Report) {
	b.WriteString("## Goals\n\nReported, not asserted by any test.\n\n")
	for _, g := range rep.Goals {
		fmt.Fprintf(b, "- **%s**: %s. %s.\n", g.Status, g.Name, strings.TrimSuffix(g.Detail, "."))
	}
	b.WriteString("\n")
}

// num prints a rate or count with thousands separators, one decimal below 100.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	if v < 100 {
		return fmt.Sprintf("%.1f", v)
	}
	s := fmt.Sprintf("%.0f", v)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// ms prints a duration in milliseconds.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}
