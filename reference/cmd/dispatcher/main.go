// Command dispatcher is the reference outbox dispatcher: it moves
// outbox_events rows to BullMQ queues, as package reference describes.
//
// It reads its configuration from OUTBOX_* environment variables (see
// reference.ConfigFromEnv). Exit codes: 0 after a graceful stop (SIGTERM or
// SIGINT; a second signal terminates at once), 2 on a configuration error
// (one line on stderr), 1 on any other error.
package main

import (
	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

func main() {
	dispatchkit.Exit("dispatcher", func(environ []string) (dispatchkit.Runner, error) {
		cfg, err := reference.ConfigFromEnv(environ)
		if err != nil {
			return nil, dispatchkit.ConfigError(err)
		}
		d, err := reference.New(cfg)
		if reference.IsConfigError(err) {
			return nil, dispatchkit.ConfigError(err)
		}
		return d, err
	})
}
