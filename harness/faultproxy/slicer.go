package faultproxy

import "fmt"

// Slicer cuts the link's data into slices of Average bytes, varied by up to
// Size, with Delay microseconds between them. toxiproxy's "slicer" serves
// it when Size is 0, the seeded slicer (slicer_seeded.go) otherwise.
type Slicer struct {
	Direction Direction // empty means downstream
	Average   int       // bytes, > 0
	Size      int       // variation in bytes, < Average
	Delay     int       // microseconds between slices
}

// Kind is "slicer".
func (Slicer) Kind() Kind { return "slicer" }

// String is "slicer <Average>B".
func (f Slicer) String() string {
	return withDirection(fmt.Sprintf("slicer %dB", f.Average), f.Direction)
}

// Params records direction, slice_average, slice_size and slice_delay_us.
func (f Slicer) Params() map[string]string {
	p := directionParams(f.Direction)
	if f.Average > 0 {
		p["slice_average"], p["slice_size"], p["slice_delay_us"] = fmt.Sprint(f.Average), fmt.Sprint(f.Size), fmt.Sprint(f.Delay)
	}
	return p
}

// Validate wants a positive average, a smaller variation and no negative delay.
func (f Slicer) Validate() error {
	return invalid(f, validDirection(f.Direction), f.validSlices())
}

func (f Slicer) validSlices() error {
	if f.Average <= 0 {
		return fmt.Errorf("average slice size %d bytes: want > 0", f.Average)
	}
	if f.Size < 0 || f.Size >= f.Average {
		return fmt.Errorf("size variation %d bytes: want >= 0 and < average %d", f.Size, f.Average)
	}
	if f.Delay < 0 {
		return fmt.Errorf("delay %d µs: want >= 0", f.Delay)
	}
	return nil
}

func (f Slicer) apply(id string, seed int64) applied {
	spec := toxicSpec{Name: id, Stream: f.Direction.stream(), Type: "slicer",
		Attributes: map[string]int{"average_size": f.Average, "size_variation": 0, "delay": f.Delay}}
	if f.Size != 0 {
		spec.Type = slicerToxicType
		spec.Attributes = &seededSlicer{Average: f.Average, Variation: f.Size, DelayMicros: f.Delay, Seed: seed}
	}
	return applied{toxics: []toxicSpec{spec}}
}
