package dispatcher

import (
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"strings"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// Config is the reference dispatcher's configuration (the contract's
// OUTBOX_* variables, read and validated by reference.ConfigFromEnv) plus the
// bug or mode to run. OUTBOX_METRICS_ADDR is accepted and ignored: this
// dispatcher serves no metrics.
type Config struct {
	reference.Config
	Bug  string // OUTBOXCHAOS_MUTANT: one of Bugs(); "" runs the correct base
	Mode string // OUTBOXCHAOS_MODE: one of Modes(); "" for none
}

// ConfigFromEnv reads the configuration from environ (os.Environ()'s
// KEY=value form) and validates it.
func ConfigFromEnv(environ []string) (Config, error) {
	ref, err := reference.ConfigFromEnv(environ)
	if err != nil {
		return Config{}, err
	}
	c := Config{Config: ref}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case names.EnvMutant:
			c.Bug = strings.TrimSpace(value)
		case names.EnvMode:
			c.Mode = strings.TrimSpace(value)
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks the reference configuration and the bug and mode names.
func (c Config) Validate() error {
	if err := c.Config.WithDerived().Validate(); err != nil {
		return err
	}
	_, err := flowFor(c.Bug, c.Mode)
	return err
}

// Name names what runs: the bug, the mode, or "base".
func (c Config) Name() string {
	switch {
	case c.Bug != "":
		return c.Bug
	case c.Mode != "":
		return c.Mode
	}
	return "base"
}

// FromEnv builds the dispatcher the environment describes: ConfigFromEnv,
// then New. A configuration error is marked dispatchkit.ConfigError, so the
// command exits with code 2 for it.
func FromEnv(environ []string) (*Dispatcher, error) {
	cfg, err := ConfigFromEnv(environ)
	if err != nil {
		return nil, dispatchkit.ConfigError(err)
	}
	return New(cfg)
}
