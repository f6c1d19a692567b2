package runner

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// NeedServerZone: the environment lets the harness set the MySQL server's
// global time zone for the run (a server of its own: local or
// testcontainers), and the adapter's store is MySQL.
const NeedServerZone Needs = "server-zone"

// Zones runs a scenario with the store's server and the dispatcher's
// processes in different time zones. Server is a fixed offset ("+07:00"),
// set as the MySQL server's global time_zone for the run (SET GLOBAL, the
// earlier value restored when the run ends), so every session opened in
// the run, the harness's and the instances', starts in it. Process is the
// instances' TZ, a zone name of the system's zone database
// ("America/New_York"). The zero value changes neither.
type Zones struct {
	Server  string
	Process string
}

// IsZero tells whether the scenario sets no zones.
func (z Zones) IsZero() bool { return z == Zones{} }

var offsetPattern = regexp.MustCompile(`^[+-](0\d|1[0-3]):[0-5]\d$`)

// Validate reports a zone the harness could not apply.
func (z Zones) Validate() error {
	if z.IsZero() {
		return nil
	}
	if !offsetPattern.MatchString(z.Server) {
		return fmt.Errorf("server time zone %q: write a fixed offset such as +07:00 (a named zone needs the server's time zone tables)", z.Server)
	}
	if z.Process == "" {
		return fmt.Errorf("process time zone is empty: name a zone such as America/New_York")
	}
	if _, err := time.LoadLocation(z.Process); err != nil {
		return fmt.Errorf("process time zone %q: %v: name a zone of the system's zone database (/usr/share/zoneinfo; apt-get install tzdata)", z.Process, err)
	}
	return nil
}

// serverZoneMissing says why the run cannot set the store server's time
// zone, or "" when it can.
func serverZoneMissing(e env.Env, pg bool) string {
	switch {
	case pg:
		return "the scenario sets the MySQL server's time zone; a PostgreSQL store keeps timestamptz in UTC and is not covered"
	case e.MySQL() == nil:
		return "the " + e.Name() + " environment's MySQL server is not the harness's own: its global time_zone is not the harness's to set"
	}
	return ""
}

// applyServerZone sets the server's global time_zone to zone through
// admin, registers its restoration in closers, and returns what it read
// back: the global value and the offset a new session's NOW() has from
// UTC_TIMESTAMP(), read through db (a pool with no session yet).
func applyServerZone(ctx context.Context, admin, db *sql.DB, zone string, closers *[]func() error) (global, offset string, err error) {
	var before string
	if err := admin.QueryRowContext(ctx, "SELECT @@global.time_zone").Scan(&before); err != nil {
		return "", "", fmt.Errorf("read the server's time zone: %w", err)
	}
	if _, err := admin.ExecContext(ctx, "SET GLOBAL time_zone = ?", zone); err != nil {
		return "", "", fmt.Errorf("set the server's time zone to %s (needs SUPER): %w", zone, err)
	}
	*closers = append(*closers, func() error {
		rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(rctx, "SET GLOBAL time_zone = ?", before); err != nil {
			return fmt.Errorf("restore the server's time zone %s: %w", before, err)
		}
		return nil
	})
	var seconds int
	err = db.QueryRowContext(ctx, "SELECT @@global.time_zone, TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW())").Scan(&global, &seconds)
	if err != nil {
		return "", "", fmt.Errorf("read the server's time zone back: %w", err)
	}
	return global, formatOffset(seconds), nil
}

// processZone is zone's offset from UTC at t, as +hh:mm.
func processZone(zone string, t time.Time) (string, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return "", err
	}
	_, seconds := t.In(loc).Zone()
	return formatOffset(seconds), nil
}

// formatOffset writes seconds east of UTC as +hh:mm.
func formatOffset(seconds int) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	return fmt.Sprintf("%s%02d:%02d", sign, seconds/3600, seconds%3600/60)
}

// zonesApplied is what the run records of the scenario's zones.
func zonesApplied(z Zones, global, serverOffset string, started time.Time) (*history.Zones, error) {
	off, err := processZone(z.Process, started)
	if err != nil {
		return nil, fmt.Errorf("process time zone %s: %w", z.Process, err)
	}
	return &history.Zones{Server: global, ServerOffset: serverOffset, Process: z.Process, ProcessOffset: off}, nil
}
