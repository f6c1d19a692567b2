package sink

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// ArchivePrefix starts the name of the harness's archive of a list sink.
const ArchivePrefix = "oc:archive:"

// Archive is the list the harness moves key's elements into.
func Archive(key string) string { return ArchivePrefix + key }

// Ends of a list the dispatcher pushes onto (Config.Push).
const (
	PushLeft  = "left"  // LPUSH: the oldest element is at the right end
	PushRight = "right" // RPUSH: the oldest element is at the left end
)

// Config describes a stream or list sink: the manifest's sink section.
type Config struct {
	// Kind is history.SinkStream or history.SinkList.
	Kind string
	// Keys are the streams or lists, one per queue or topic, used as given.
	Keys []string
	// MessageID names where a message carries its id: the stream entry's
	// field, or the list element's top-level JSON key. "" when it carries
	// none (then the payload's jobId identifies it).
	MessageID string
	// Payload names where the payload is: the stream entry's field, or the
	// list element's JSON key. "" searches the whole entry or element.
	Payload string
	// Push is the end the dispatcher pushes a list's elements onto:
	// PushLeft (LPUSH, the default) or PushRight (RPUSH). Lists only.
	Push string
}

// Validate checks the configuration and fills in defaults.
func (c *Config) Validate() error {
	switch c.Kind {
	case history.SinkStream, history.SinkList:
	case history.SinkBullMQ, "bullmq":
		return fmt.Errorf("sink kind %q: this describes %s and %s sinks only; a BullMQ sink is followed by observe.RedisObserver",
			c.Kind, history.SinkStream, history.SinkList)
	default:
		return fmt.Errorf("sink kind %q: use %s or %s", c.Kind, history.SinkStream, history.SinkList)
	}
	if err := c.validateKeys(); err != nil {
		return err
	}
	for name, v := range map[string]string{"message id": c.MessageID, "payload": c.Payload} {
		if v != strings.TrimSpace(v) {
			return fmt.Errorf("sink %s %q: remove the surrounding whitespace", name, v)
		}
	}
	return c.validatePush()
}

func (c *Config) validateKeys() error {
	if len(c.Keys) == 0 {
		return fmt.Errorf("sink %s: no keys; name at least one %s (the queues or topics the dispatcher publishes to)", c.Kind, c.noun())
	}
	seen := map[string]bool{}
	for _, k := range c.Keys {
		switch {
		case k == "" || k != strings.TrimSpace(k) || strings.ContainsAny(k, " \t\r\n"):
			return fmt.Errorf("sink %s key %q: use a non-empty name without whitespace", c.Kind, k)
		case strings.HasPrefix(k, ArchivePrefix):
			return fmt.Errorf("sink %s key %q: names under %q are the harness's own; rename the %s", c.Kind, k, ArchivePrefix, c.noun())
		case seen[k]:
			return fmt.Errorf("sink %s key %q is listed twice; list each %s once", c.Kind, k, c.noun())
		}
		seen[k] = true
	}
	return nil
}

func (c *Config) validatePush() error {
	if c.Kind == history.SinkStream {
		if c.Push != "" {
			return fmt.Errorf("sink push %q: push applies to %s sinks only; remove it", c.Push, history.SinkList)
		}
		return nil
	}
	switch c.Push {
	case "":
		c.Push = PushLeft
	case PushLeft, PushRight:
	default:
		return fmt.Errorf("sink push %q: use %s (the dispatcher LPUSHes) or %s (it RPUSHes)", c.Push, PushLeft, PushRight)
	}
	return nil
}

func (c *Config) noun() string {
	if c.Kind == history.SinkStream {
		return "stream"
	}
	return "list"
}

// Oldest is the end of a list sink's keys its oldest element is at: the
// end the mover takes from, so elements are moved in push order ("RIGHT"
// for LPUSH, "LEFT" for RPUSH).
func (c Config) Oldest() string {
	if c.Push == PushRight {
		return "LEFT"
	}
	return "RIGHT"
}
