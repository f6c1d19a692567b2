package bench

import (
	"context"
	"fmt"
	"slices"
)

// saturationRounds measures the floor and every reference count Rounds
// times, interleaved, and returns one row each: its median round. The
// latency phase runs in the first round only.
func (r *runner) saturationRounds(ctx context.Context) ([]Row, error) {
	rounds := make([][]Row, 1+len(r.cfg.Instances))
	for round := 0; round < r.cfg.Rounds; round++ {
		r.log("saturation round %d of %d", round+1, r.cfg.Rounds)
		floor, err := r.runFloor(ctx)
		if err != nil {
			return nil, fmt.Errorf("floor: %w", err)
		}
		rounds[0] = append(rounds[0], floor)
		for i, n := range r.cfg.Instances {
			row, err := r.referenceCase(ctx, n, round == 0)
			if err != nil {
				return nil, fmt.Errorf("reference x%d: %w", n, err)
			}
			rounds[i+1] = append(rounds[i+1], row)
		}
	}
	out := make([]Row, len(rounds))
	for i, rs := range rounds {
		out[i] = medianRow(rs)
	}
	return out, nil
}

// medianRow is the round with the median rate (the upper one of an even
// count), carrying every round's rate, the largest peak RSS of any round
// and the latency measured in whichever round ran it.
func medianRow(rs []Row) Row {
	byRate := slices.Clone(rs)
	slices.SortStableFunc(byRate, func(a, b Row) int {
		switch {
		case a.EPS < b.EPS:
			return -1
		case a.EPS > b.EPS:
			return 1
		}
		return 0
	})
	m := byRate[len(byRate)/2]
	m.RoundEPS = nil
	for _, row := range rs {
		m.RoundEPS = append(m.RoundEPS, row.EPS)
		m.PeakRSSMB = max(m.PeakRSSMB, row.PeakRSSMB)
		if m.Latency == nil && row.Latency != nil {
			m.Latency = row.Latency
		}
	}
	return m
}
