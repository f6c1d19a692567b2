package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
)

// Machine is the header of a report: where and on what it ran.
type Machine struct {
	Uname     string // `uname -srm`
	CPUModel  string
	Cores     int
	MariaDB   string
	Redis     string
	Go        string
	LoadStart string // /proc/loadavg's 1, 5 and 15 minute averages
	LoadEnd   string
}

func (r *runner) machine(ctx context.Context) (Machine, error) {
	m := Machine{
		Uname: uname(), CPUModel: cpuModel(), Cores: runtime.NumCPU(), Go: runtime.Version(),
		MariaDB: r.srv.maria.Version(), Redis: r.srv.redis.Version(), LoadStart: loadAverage(),
	}
	if err := ctx.Err(); err != nil {
		return m, err
	}
	return m, nil
}

// uname is what `uname -srm` prints: system, release, machine.
func uname() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return runtime.GOOS + " " + runtime.GOARCH
	}
	return fmt.Sprintf("%s %s %s", utsString(u.Sysname[:]), utsString(u.Release[:]), utsString(u.Machine[:]))
}

func utsString(field []int8) string {
	var b strings.Builder
	for _, c := range field {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

// cpuModel is /proc/cpuinfo's first "model name".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, value, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
