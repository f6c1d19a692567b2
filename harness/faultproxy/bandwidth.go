package faultproxy

import "fmt"

// Bandwidth limits the link to Rate KB/s: toxiproxy's "bandwidth" toxic.
type Bandwidth struct {
	Direction Direction // empty means downstream
	Rate      int       // KB/s, > 0
}

// Kind is "bandwidth".
func (Bandwidth) Kind() Kind { return "bandwidth" }

// String is "bandwidth <Rate>KB/s".
func (f Bandwidth) String() string {
	return withDirection(fmt.Sprintf("bandwidth %dKB/s", f.Rate), f.Direction)
}

// Params records direction and rate_kbps.
func (f Bandwidth) Params() map[string]string {
	p := directionParams(f.Direction)
	if f.Rate > 0 {
		p["rate_kbps"] = fmt.Sprint(f.Rate)
	}
	return p
}

// Validate wants a known direction and a positive rate.
func (f Bandwidth) Validate() error {
	var rate error
	if f.Rate <= 0 {
		rate = fmt.Errorf("rate %d KB/s: want > 0", f.Rate)
	}
	return invalid(f, validDirection(f.Direction), rate)
}

func (f Bandwidth) apply(id string, _ int64) applied {
	return applied{toxics: []toxicSpec{{Name: id, Type: "bandwidth", Stream: f.Direction.stream(),
		Attributes: map[string]int64{"rate": int64(f.Rate)}}}}
}
