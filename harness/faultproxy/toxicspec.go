package faultproxy

import (
	"encoding/json"
	"fmt"
)

// toxicSpec is one toxic as toxiproxy's JSON API describes it. Toxicity is
// always 1: toxiproxy draws it from global randomness, so every random
// choice is made here, from the run's seed, instead.
type toxicSpec struct {
	Name, Type, Stream string
	Attributes         any
}

func (t toxicSpec) json() ([]byte, error) {
	b, err := json.Marshal(struct {
		Name       string  `json:"name"`
		Type       string  `json:"type"`
		Stream     string  `json:"stream"`
		Toxicity   float32 `json:"toxicity"`
		Attributes any     `json:"attributes"`
	}{t.Name, t.Type, t.Stream, 1.0, t.Attributes})
	if err != nil {
		return nil, fmt.Errorf("encode toxic %s: %w", t.Name, err)
	}
	return b, nil
}
