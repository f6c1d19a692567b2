package faultproxy

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// registry maps the key a toxic carries in its JSON attributes to its
// fault's shared state: toxiproxy builds toxic instances from JSON, so a
// pointer cannot be handed over directly. One registry per kind of state.
type registry[T any] struct {
	prefix string
	m      sync.Map // string -> *T
	seq    atomic.Uint64
}

// register stores v under a fresh key and returns the key.
func (r *registry[T]) register(v *T) string {
	key := r.prefix + strconv.FormatUint(r.seq.Add(1), 10)
	r.m.Store(key, v)
	return key
}

// lookup returns the state stored under key, or nil.
func (r *registry[T]) lookup(key string) *T {
	v, ok := r.m.Load(key)
	if !ok {
		return nil
	}
	return v.(*T)
}

func (r *registry[T]) unregister(key string) { r.m.Delete(key) }
