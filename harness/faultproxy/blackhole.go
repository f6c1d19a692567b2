package faultproxy

import "time"

// Blackhole holds the data on the link: toxiproxy's "timeout" toxic, which
// closes the connection after Timeout, or never when it is 0. Downstream,
// requests still reach the server and their replies are held.
type Blackhole struct {
	Direction Direction     // empty means downstream
	Timeout   time.Duration // whole milliseconds; 0 holds forever
}

// Kind is "blackhole".
func (Blackhole) Kind() Kind { return "blackhole" }

// String is "blackhole", with its timeout when set.
func (f Blackhole) String() string {
	return withDirection(withTimeout("blackhole", f.Timeout), f.Direction)
}

// Params records direction and timeout.
func (f Blackhole) Params() map[string]string { return timeoutParams(f.Direction, f.Timeout) }

// Validate wants a known direction and a whole-millisecond timeout.
func (f Blackhole) Validate() error {
	return invalid(f, validDirection(f.Direction), wholeMillis("timeout", f.Timeout))
}

func (f Blackhole) apply(id string, _ int64) applied {
	return applied{toxics: []toxicSpec{{Name: id, Type: "timeout", Stream: f.Direction.stream(),
		Attributes: map[string]int64{"timeout": f.Timeout.Milliseconds()}}}}
}

// timeoutParams are the params of a fault with a direction and a timeout.
func timeoutParams(d Direction, timeout time.Duration) map[string]string {
	p := directionParams(d)
	if timeout > 0 {
		p["timeout"] = timeout.String()
	}
	return p
}

// withTimeout appends a timeout, when set, to a fault's name.
func withTimeout(name string, timeout time.Duration) string {
	if timeout > 0 {
		return name + " after " + timeout.String()
	}
	return name
}
