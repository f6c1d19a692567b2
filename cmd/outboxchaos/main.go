// Command outboxchaos runs chaos and correctness scenarios against outbox
// dispatchers and reports, invariant by invariant, whether they kept their
// promises.
//
//	outboxchaos run --scenario NAME --adapter A --seed S --out DIR
//	outboxchaos chaos --out DIR [--scenario a,b] [--adapter A] [--seed S] [--shard i/n]
//	outboxchaos list
//	outboxchaos report DIR
//	outboxchaos doctor [--adapter A]
//	outboxchaos init (--dsn DSN | --ddl FILE) [--out FILE] [--start COMMAND] [--force]
//	outboxchaos bench [--out DIR] [--quick] [--long]
//
// Exit codes: 0 pass, 1 violation, 2 unknown, 3 harness error. A run is
// unknown, not a pass, when an invariant its scenario exists to exercise had
// nothing to check; `chaos` exits with the worst of its runs (a violation
// over an unknown).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

const usage = `outboxchaos: chaos and correctness tests for transactional-outbox dispatchers

commands:
  run     --scenario NAME [--adapter A] [--seed N] [--out DIR]                 run one scenario
  chaos   [--scenario a,b] [--adapter A] [--seed N] [--out DIR] [--shard i/n]  run the catalog, or the scenarios named
  list                                                                        print the scenario catalog
  report  DIR                                                                 re-check a stored run and re-render it
  doctor  [--adapter A]                                                       say which environments will be used, what is missing
  init    (--dsn DSN | --ddl FILE) [--out FILE] [--start CMD] [--force]       draft a manifest from your schema (reads only)
  bench   [--out DIR] [--quick] [--long]                                      throughput and latency beside the seeds' designs

outboxchaos COMMAND --help prints the command's flags.

exit codes: 0 pass, 1 violation, 2 unknown (also: an invariant the scenario exists
to exercise had nothing to check), 3 harness error; chaos exits with its worst run
`

func main() {
	// The harness's own Redis clients redial through restarts and outages
	// on purpose; go-redis would print every failed dial.
	redis.SetLogger(quietRedis{})
	// Likewise the MySQL driver, for every connection a server restart or
	// an outage cuts ("closing bad idle connection"); the statements that
	// fail report their own errors.
	_ = mysql.SetLogger(quietMySQL{})
	os.Exit(run(os.Args[1:]))
}

type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

type quietMySQL struct{}

func (quietMySQL) Print(...any) {}

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(os.Stderr, usage)
		if len(args) == 0 {
			return 3
		}
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmds := map[string]func(context.Context, []string) int{
		"run": cmdRun, "chaos": cmdChaos, "list": cmdList, "report": cmdReport, "doctor": cmdDoctor, "bench": cmdBench,
		"init": cmdInit,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "outboxchaos: unknown command %q\n\n%s", args[0], usage)
		return 3
	}
	return cmd(ctx, args[1:])
}
