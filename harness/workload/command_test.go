package workload_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// The test binary plays a team's producer command when producerModeVar is
// set: it reads the harness's lines and commits each event as a library
// would, minting its own message id.
const producerModeVar = "OC_TEST_PRODUCER"

const commandDDL = "CREATE TABLE lib_outbox (id BIGINT AUTO_INCREMENT PRIMARY KEY, message_uuid CHAR(36) NOT NULL, " +
	"topic VARCHAR(64) NOT NULL, envelope JSON NOT NULL, processed_at DATETIME(6) NULL)"

func commandMapping() schema.Mapping {
	return schema.Mapping{DDL: []string{commandDDL},
		Outbox: schema.Outbox{Table: "lib_outbox", ID: "id", MessageID: "message_uuid", Topic: "topic", Payload: "envelope"},
		States: schema.States{Published: "processed_at IS NOT NULL"}}
}

// runTestProducer is the producer command: "good" replies as the protocol
// says; "garbage" prints a log line on stdout; "refuse" replies an error.
func runTestProducer(mode string) int {
	db, err := sql.Open("mysql", os.Getenv("OUTBOX_MYSQL_DSN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer db.Close()
	sc := bufio.NewScanner(os.Stdin)
	for n := 1; sc.Scan(); n++ {
		var line struct {
			Seq     int64           `json:"seq"`
			Topic   string          `json:"topic"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		switch mode {
		case "garbage":
			fmt.Println("connected to mysql")
			continue
		case "refuse":
			fmt.Printf("{\"seq\": %d, \"error\": \"envelope rejected\"}\n", line.Seq)
			continue
		}
		msg := fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		env, _ := json.Marshal(map[string]any{"meta": map[string]string{"lib": "x"}, "body": line.Payload})
		res, err := db.Exec("INSERT INTO lib_outbox (message_uuid, topic, envelope) VALUES (?, ?, ?)", msg, line.Topic, env)
		if err != nil {
			fmt.Printf("{\"seq\": %d, \"error\": %q}\n", line.Seq, err.Error())
			continue
		}
		id, _ := res.LastInsertId()
		fmt.Printf("{\"seq\": %d, \"row\": \"%d\", \"message_id\": %q}\n", line.Seq, id, msg)
	}
	return 0
}

func commandProducer(t *testing.T, mode string) (*workload.CommandProducer, *history.Recorder, *sql.DB) {
	t.Helper()
	m := commandMapping()
	db, dsn := localtest.MySQLWith(t, m.DDL...)
	exe, err := os.Executable()
	require.NoError(t, err)
	rec := history.NewRecorder(history.Meta{})
	cmd := supervisor.Command(context.Background(), supervisor.Spec{Path: exe, Args: []string{"-test.run=^$"},
		Env: []string{producerModeVar + "=" + mode, "OUTBOX_MYSQL_DSN=" + dsn}})
	p, err := workload.NewCommandProducer(workload.ProducerConfig{DB: db, Schema: m, Queues: []string{"ai-default", "ai-bulk"},
		Mix: workload.Mix{Valid: 90, UnknownType: 10}, Rand: rand.New(rand.NewPCG(1, 1)), Recorder: rec, RunID: "cmd"}, cmd)
	require.NoError(t, err)
	return p, rec, db
}

func TestCommandProducerRecordsWhatTheLibraryWrote(t *testing.T) {
	p, rec, db := commandProducer(t, "good")
	require.NoError(t, p.Produce(localtest.Context(t), 5))
	evs := rec.Snapshot().Events
	require.Len(t, evs, 5)
	for _, e := range evs {
		var msg, topic, jobID string
		require.NoError(t, db.QueryRow("SELECT message_uuid, topic, JSON_UNQUOTE(JSON_EXTRACT(envelope, '$.body.jobId')) FROM lib_outbox WHERE id = ?", e.ID).
			Scan(&msg, &topic, &jobID))
		require.Equal(t, msg, e.MessageID, "the message id the library minted")
		require.Equal(t, topic, e.Queue)
		require.Equal(t, jobID, e.JobID, "the payload's jobId, inside the library's envelope")
		require.Equal(t, history.KindValid, e.Kind, "a producer command writes no poison")
		require.Empty(t, e.Row, "an AUTO_INCREMENT key is the event id")
		require.False(t, e.Produced.IsZero())
	}
}

func TestCommandProducerSaysWhatIsWrong(t *testing.T) {
	p, _, _ := commandProducer(t, "garbage")
	err := p.Produce(localtest.Context(t), 2)
	require.ErrorContains(t, err, `"connected to mysql" is not a JSON reply`)
	require.ErrorContains(t, err, "logs go to stderr")

	p, _, _ = commandProducer(t, "refuse")
	require.ErrorContains(t, p.Produce(localtest.Context(t), 2), "seq 1: envelope rejected")
}

func TestCommandProducerCannotHoldTransactions(t *testing.T) {
	_, err := workload.NewCommandProducer(workload.ProducerConfig{Hold: workload.Hold{Share: 0.1}}, nil)
	require.ErrorContains(t, err, "only the harness's own producer")
}
