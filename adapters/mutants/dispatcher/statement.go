package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// lastError folds text onto one line and fits it to last_error: width
// characters of valid UTF-8 (dispatchkit.FitError). unfitted-failure
// writes it as it comes, only folded.
func (d *Dispatcher) lastError(ctx context.Context, q dispatchkit.Querier, text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if d.flow.unfitted {
		return text
	}
	return dispatchkit.FitError(text, d.errWidth.Of(ctx, q))
}

// refusedText is the short reason unfitted-failure writes when the server
// refused its failure write: the error number, as a handler that logs "DB
// error, will retry" keeps it.
func refusedText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("refused: error %d", me.Number)
	}
	return "refused"
}
