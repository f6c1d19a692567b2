package faultproxy

import "time"

// Reset closes the link's connections: toxiproxy's "reset_peer" toxic, on
// the first data after Timeout (at once when it is 0).
type Reset struct {
	Direction Direction     // empty means downstream
	Timeout   time.Duration // whole milliseconds
}

// Kind is "reset".
func (Reset) Kind() Kind { return "reset" }

// String is "reset", with its timeout when set.
func (f Reset) String() string { return withDirection(withTimeout("reset", f.Timeout), f.Direction) }

// Params records direction and timeout.
func (f Reset) Params() map[string]string { return timeoutParams(f.Direction, f.Timeout) }

// Validate wants a known direction and a whole-millisecond timeout.
func (f Reset) Validate() error {
	return invalid(f, validDirection(f.Direction), wholeMillis("timeout", f.Timeout))
}

func (f Reset) apply(id string, _ int64) applied {
	return applied{toxics: []toxicSpec{{Name: id, Type: "reset_peer", Stream: f.Direction.stream(),
		Attributes: map[string]int64{"timeout": f.Timeout.Milliseconds()}}}}
}
