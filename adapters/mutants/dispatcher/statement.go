package dispatcher

import (
	"strings"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// lastError folds text onto one line and cuts it to fit last_error.
func lastError(text string) string {
	return dispatchkit.TruncateError(strings.Join(strings.Fields(text), " "))
}
