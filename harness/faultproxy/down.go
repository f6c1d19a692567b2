package faultproxy

// Down stops the link: its listener is closed (new connections are
// refused) and its open connections are closed. Removing the last down
// fault listens again on the same address.
type Down struct{}

// Kind is "down".
func (Down) Kind() Kind { return "down" }

// String is "down".
func (Down) String() string { return "down" }

// Params: down has no settings.
func (Down) Params() map[string]string { return map[string]string{} }

// Validate: a down fault is always valid.
func (Down) Validate() error { return nil }

func (Down) apply(string, int64) applied { return applied{down: true} }
