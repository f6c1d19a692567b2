// Package manifest is the manifest (exec) adapter: a dispatcher written in
// any language plugs into the harness through one YAML file that says how to
// build it, how to start it, what its schema is, where its jobs go and which
// parts of the contract it keeps. Load reads and validates the file; the
// result implements supervisor.Adapter.
//
// # A complete example
//
//	# adapters/examples/roomservice/manifest.yaml (abridged)
//	name: roomservice                 # letters, digits, . _ - (reports show it)
//
//	build:                            # optional; run once per work directory
//	  command: go                     # a name on PATH, or a path relative to dir
//	  args: [build, -o, "${WORK_DIR}/bin/roomdispatcher", ./adapters/examples/roomservice/cmd/roomdispatcher]
//	  dir: ../../..                   # relative to this file; default: its directory
//
//	start:
//	  command: "${WORK_DIR}/bin/roomdispatcher"
//	  args: []                        # templates allowed
//	  dir: .                          # relative to this file; default: its directory
//	  pass_contract_env: false        # default true: every OUTBOX_* variable as is
//	  env:                            # set on top; templates over the contract variables
//	    ROOM_MYSQL_DSN: "${OUTBOX_MYSQL_DSN}"
//	    ROOM_OUTBOX_LOCK_TTL: "${OUTBOX_LEASE}"
//	    ROOM_OUTBOX_RETRY_STRATEGY: fixed_interval
//
//	schema:                           # or: schema: reference
//	  ddl: schema.sql                 # relative to this file; split into statements
//	  outbox:                         # the dispatcher's column for each contract column
//	    table: room_outbox
//	    id: event_id                  # must be AUTO_INCREMENT
//	    event_type: event_type
//	    aggregate_id: task_id
//	    payload: envelope
//	    status: status
//	    attempts: retry_count         # optional columns from here on
//	    available_at: retry_at
//	    locked_by: worker_id
//	    locked_until: lock_until
//	    last_error: last_error
//	    published_at: delivered_at
//	    created_at: created_at        # (lock_token omitted: it has none)
//	  jobs: {table: room_tasks, id: task_id, queue: queue, status: state}
//	  outbox_status:                  # its word -> canonical word
//	    pending: pending
//	    retryable: pending
//	    delivering: processing
//	    delivered: published
//	    failed: failed
//	  job_status: {new: created, dispatched: queued, running: running, done: succeeded}
//
//	sink:                             # optional
//	  prefix: bull                    # BullMQ key prefix it must use
//	  queues: [ai-default, ai-bulk]   # queue allowlist it must use
//
//	capabilities:
//	  tuning: [OUTBOX_POLL_INTERVAL, OUTBOX_BATCH_SIZE, OUTBOX_LEASE,
//	           OUTBOX_MAX_ATTEMPTS, OUTBOX_BACKOFF_BASE, OUTBOX_PUBLISH_TIMEOUT]
//	  crash_points: false             # reads OUTBOX_FAILPOINTS and prints the crash line
//	  graceful_term: true             # SIGTERM: stop claiming, finish or release, exit 0
//	  clock: faketime                 # how to skew its clock: faketime, go-overlay, none
//	  ordering: per-aggregate         # optional promise: an aggregate's events in order
//	  durability: wait                # optional promise: published once a replica holds the job
//
//	conventions:                      # optional: what the history cannot show
//	  releases:                       # how it gives a claim back before the lease ends
//	    last_error_prefixes: ["released: "]
//	  recoveries:                     # how it returns an expired claim to pending
//	    keeps_last_error: true        # leaves last_error as it was
//	    bound: 10s                    # recovers a dead owner's claim within this after the lease
//
// # Keys
//
//   - name (required).
//   - build (optional): command (required), args, dir. Prepare runs it once
//     per work directory with the harness's environment minus any OUTBOX_*
//     variable; a non-zero exit fails Prepare with the last 30 lines of its
//     output. Its args may name ${WORK_DIR} and ${MANIFEST_DIR} only.
//   - start (required): command (required), args, dir, env,
//     pass_contract_env. An instance runs command with args in dir. Its
//     environment is the harness's (minus any OUTBOX_*), then the contract
//     variables if pass_contract_env is true (the default), then env.
//   - schema (required): "reference" for the contract's own schema, or a
//     mapping with ddl, outbox, jobs, outbox_status and job_status, read into
//     harness/schema.Mapping. The harness applies the DDL to a fresh
//     database, installs its history triggers on the two tables, and writes
//     and reads rows through the mapping.
//   - schema may also describe another outbox shape (docs/shapes.md): an
//     optional jobs section (with job_status) and, instead of outbox.status
//     and outbox_status, states: published (a SQL predicate over the row),
//     deleted (published or failed), cursor {table, column, group_column,
//     group}, failed (a predicate), dead_letter {table, id}, claimed (a
//     predicate); outbox.message_id, outbox.topic and outbox.constants
//     (values the harness's producer writes). The outbox id's type (an
//     AUTO_INCREMENT integer, a uuid in CHAR/VARCHAR, a BINARY(16) uuid) is
//     read from the DDL. A state predicate must name a column of the outbox
//     and hold no comment or ';'; the database runs it when the triggers are
//     installed, so one it refuses is a setup error naming the key.
//   - store (optional): mysql (the default; MySQL or MariaDB) or postgres.
//   - sink (optional): kind (bullmq, the default; redis-stream; redis-list),
//     prefix (BullMQ only) and queues (BullMQ queues, or the stream or list
//     keys). Empty means the harness picks (bull; ai-default, ai-bulk);
//     either way the values reach the process as OUTBOX_BULL_PREFIX and
//     OUTBOX_QUEUES (Prefix and Queues expose them). For a stream or a list:
//     message_id (the entry field, or the element's JSON key, holding the
//     message id), payload (where the payload is) and, for a list, push
//     (left, the default, for LPUSH; right for RPUSH).
//   - delivery (optional): exactly-once-effect (the default) or
//     at-least-once (I1 allows duplicates under the message's own id).
//   - producer (optional): command, args, dir, env: the team's own write
//     path (workload.CommandProducer's protocol), run straight against the
//     servers with the contract's variables; args and env are templates as
//     start's.
//   - capabilities (optional; all off by default): tuning lists the
//     contract tuning variables the dispatcher honours (checkers derive
//     bounds only from those), crash_points and graceful_term as in
//     supervisor.Capabilities. clock is how the harness may skew the
//     dispatcher's wall clock (harness/clockskew): faketime (libfaketime by
//     LD_PRELOAD, for a process reading the time through libc), go-overlay
//     (the build step's go build gets the time.Now overlay in GOFLAGS; it
//     needs a build step), or none. ordering: per-aggregate promises that
//     events of one aggregate (the payload's "aggregate") are published, and
//     their jobs created, in commit order (I10, the ordering scenario).
//     durability: wait promises that an event is marked published only once
//     WAIT counted OUTBOX_REDIS_REPLICAS replicas holding its job; the
//     variable must reach the process.
//     Scenarios needing a capability it lacks are skipped, not failed.
//   - conventions (optional; nothing declared by default): releases and
//     recoveries, each with last_error_prefixes (what that kind of return
//     writes at the start of last_error) and keeps_last_error (it leaves
//     last_error as it was); recoveries also bound, a Go duration up to 1h.
//     The checkers tell returns to pending apart by what happened (the lease
//     end, available_at, SIGTERM, faults: harness/check doc.go); these
//     declarations only settle a return the history cannot tell from a retry
//     without backoff (one matching a declared convention is a release, one
//     matching none is a transient failure), and a longer bound lengthens
//     I8's. They never turn a proven violation into a pass. The runner copies
//     them into the run's meta.json.
//
// Paths (dir, ddl, a command with a '/') are relative to the manifest's
// directory. A command without '/' is looked up on PATH.
//
// # Templates
//
// start.args, start.env values, build.args and both commands are templates:
// ${NAME} is replaced by a variable, $$ is a literal $, and any other $ is
// an error. start.args and start.env may name the contract variables
// (ContractVariables: OUTBOX_MYSQL_DSN, OUTBOX_MYSQL_URL, OUTBOX_REDIS_URL,
// OUTBOX_QUEUES, OUTBOX_INSTANCE_ID, OUTBOX_BULL_PREFIX, the seven tuning
// variables, OUTBOX_FAILPOINTS, OUTBOX_FAILPOINT_SEED) and the harness
// variables WORK_DIR (the run's work directory, absolute, where a build
// should write) and MANIFEST_DIR (this file's directory, absolute). build and
// both commands may name WORK_DIR and MANIFEST_DIR only. Naming any other
// variable is an error at Load. A contract variable an instance does not get
// (OUTBOX_FAILPOINTS when no crash is scheduled) expands to "".
//
// # Validation
//
// Load checks everything it can without a server, and reports every problem
// at once (an *Error of Problems), each as
//
//	<file>:<line>: <yaml path>: <what is wrong> (fix: <what to do>)
//
// It rejects: YAML syntax errors and values of the wrong type; unknown keys
// (with the closest known key); a missing name, start, command or schema; a
// dir that does not exist; a program not on PATH, or a path that is not an
// executable file (a path under ${WORK_DIR}, or a relative path missing
// while a build step exists, is checked again after the build, in Prepare);
// a template with a bad $ or an unknown variable, or a contract variable in
// build; a ddl file that is missing or unparseable; a table the DDL does not
// create; a mapped column the table lacks, a required column not mapped, an
// attempts column that is not an integer, a time column that is not
// DATETIME or TIMESTAMP, an outbox id that is not AUTO_INCREMENT; a status
// map missing a canonical word (pending, processing, published, failed;
// created, queued) or mapping to a word that is not canonical; a bad queue
// name; an unknown or repeated tuning variable; a conventions section that
// says nothing about last_error, a blank, too long or repeated prefix, a
// recovery bound that is not a positive Go duration of at most 1h; and a
// capability that cannot
// work because its variables never reach the process (a tuning variable or
// OUTBOX_FAILPOINTS neither passed through nor named in start.env or args).
//
// The DDL file is read by package adapters/schemaddl (shared with
// `outboxchaos init`): it splits at semicolons outside quotes and comments
// and reads the column names and base types of CREATE TABLE statements. It
// does not understand DELIMITER blocks.
package manifest
