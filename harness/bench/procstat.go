package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// Linux fixes it at 100 on every architecture Go supports.
const clockTicks = 100

// procUsage is what /proc says about one process at one moment.
type procUsage struct {
	CPU   time.Duration // user + system time since the process started
	HWMKB int64         // VmHWM: peak resident set size
	RSSKB int64         // VmRSS: current resident set size
}

// readUsage reads /proc/<pid>/stat and /proc/<pid>/status. It must run
// before the process exits: a reaped process has no /proc entry.
func readUsage(pid int) (procUsage, error) {
	cpu, err := readCPU(pid)
	if err != nil {
		return procUsage{}, err
	}
	mem, err := readStatus(pid, "VmHWM", "VmRSS")
	if err != nil {
		return procUsage{}, err
	}
	return procUsage{CPU: cpu, HWMKB: mem["VmHWM"], RSSKB: mem["VmRSS"]}, nil
}

// readCPU returns utime + stime of pid.
func readCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cpu time of pid %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after the last ')'. utime and stime are fields 14 and 15.
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, fmt.Errorf("cpu time of pid %d: /proc stat line has no ')': %q", pid, s)
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("cpu time of pid %d: /proc stat line too short: %q", pid, s)
	}
	var ticks int64
	for _, field := range f[11:13] { // fields 14 and 15, counted from field 3
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cpu time of pid %d: field %q: %w", pid, field, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// readStatus returns the named kB fields of /proc/<pid>/status.
func readStatus(pid int, names ...string) (map[string]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, fmt.Errorf("memory of pid %d: %w", pid, err)
	}
	defer f.Close()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || !want[name] {
			continue
		}
		fields := strings.Fields(rest) // "12345 kB"
		if len(fields) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			out[name] = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("memory of pid %d: %w", pid, err)
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("memory of pid %d: /proc status has no %s", pid, n)
		}
	}
	return out, nil
}

// cpuOf sums the CPU time of pids; a pid that cannot be read is an error.
func cpuOf(pids ...int) (time.Duration, error) {
	var total time.Duration
	for _, pid := range pids {
		c, err := readCPU(pid)
		if err != nil {
			return 0, err
		}
		total += c
	}
	return total, nil
}

// machineTicks are the whole machine's busy and total CPU ticks since boot,
// over every core (/proc/stat's first line).
type machineTicks struct{ busy, total int64 }

func readMachineTicks() (machineTicks, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineTicks{}, fmt.Errorf("machine cpu: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return machineTicks{}, fmt.Errorf("machine cpu: unexpected /proc/stat line %q", line)
	}
	var t machineTicks
	for i, field := range f[1:] {
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return machineTicks{}, fmt.Errorf("machine cpu: field %q: %w", field, err)
		}
		switch i {
		case 3, 4: // idle, iowait
		case 8, 9: // guest, guest_nice: already counted in user and nice
			continue
		default: // user, nice, system, irq, softirq, steal
			t.busy += n
		}
		t.total += n
	}
	return t, nil
}

// busyCores is how many of cores the whole machine kept busy between a and b.
func busyCores(a, b machineTicks, cores int) float64 {
	if b.total <= a.total {
		return 0
	}
	return float64(b.busy-a.busy) / float64(b.total-a.total) * float64(cores)
}
