package dispatchkit

import (
	"errors"
	"sync"
)

// Owned is what a dispatcher opened itself and so must close: connections
// injected by its caller stay open. Its methods are safe for concurrent use.
type Owned struct {
	mu      sync.Mutex
	closers []func() error
}

// Open sets *conn with open when the caller injected none (*conn is nil),
// and remembers to close it.
func Open[T comparable](o *Owned, conn *T, open func() (T, error), close func(T) error) error {
	var none T
	if *conn != none {
		return nil
	}
	c, err := open()
	if err != nil {
		return err
	}
	*conn = c
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closers = append(o.closers, func() error { return close(c) })
	return nil
}

// Close closes what was opened, the last first. It is idempotent.
func (o *Owned) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var errs []error
	for i := len(o.closers) - 1; i >= 0; i-- {
		errs = append(errs, o.closers[i]())
	}
	o.closers = nil
	return errors.Join(errs...)
}
