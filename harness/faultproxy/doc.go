// Package faultproxy puts an embedded, in-process toxiproxy
// (github.com/Shopify/toxiproxy/v2 v2.5.0) in front of MySQL, PostgreSQL
// and Redis for every dispatcher connection, and injects network faults on
// it.
//
// # Links
//
// A Server holds named links ("mysql/d1", "redis/d1", "redis"); Link starts
// a toxiproxy proxy on a free 127.0.0.1 port in front of one upstream. The
// proxy dials the upstream for each accepted client, so a server killed
// and restarted behind a link is reached again by new connections; the
// link's address never changes. The toxiproxy API server is never started.
// Observers connect to the servers directly, never through a link. A link
// whose dependency (its name up to '/') is "postgres" carries one toxic of
// its own from its creation ("PostgreSQL: prepared statements").
//
// # Fault kinds
//
// Each fault kind is a type of its own implementing Fault, in a file named
// after it (latency.go, blackhole.go, reset.go, down.go, bandwidth.go,
// slicer.go, lostreply_redis.go, lostreply_mysql.go, queue_error.go,
// commit_hold.go, sql_error.go, lostreply_postgres.go,
// commit_hold_postgres.go, redis_state.go, half_open.go), and All lists
// each once. A kind's type
// carries only the settings it takes, so the compiler rejects a setting
// that does not apply; Validate checks the values. Kind and Params are
// what the history records of the fault; apply builds its toxics and the
// state they share. The files named after a protocol (redis_*.go,
// mysql_*.go, pg_*.go, and the parsers resp.go, mysqlproto.go, pgproto.go)
// hold the filters those toxics run, jitter.go and slicer_seeded.go the
// seeded toxics.
//
// # Faults bound to the run: its sink and its store
//
// Some faults mean something that depends on the run, and the nemesis
// binds them before adding them. A SinkBound Redis fault learns the sink
// (what a publish is, what a queue's keys are). A StoreBound database fault
// learns the store, whose wire protocol its toxics parse: the same
// scenario, written with the MySQL kind, then runs against either store.
// The history must say what happened, and reports and landing rules read a
// fault record's kind, so a kind whose name names its protocol becomes the
// other store's own kind with the same settings:
// lost-reply-mysql-commit is recorded as lost-reply-postgres-commit and
// commit-hold-mysql as commit-hold-postgres on PostgreSQL (and back). A
// kind whose name names no protocol keeps it and records the store as a
// param: sql-error records store=postgres on PostgreSQL, nothing on MySQL,
// so MySQL records are as before. The landing rules need no change: a
// lost reply is any kind starting lost-reply with its fired count, a lock
// conflict any sql-error with its answered count, and a held finalize is
// the finalize trap's own record whichever hold it used.
//
// # Faults and the toxics they become
//
// Every toxic is added with toxicity 1: toxiproxy draws toxicity, latency
// jitter and slicer variation from Go's global generator, which no seed
// reproduces. Every random choice is therefore made in this package, from
// the *rand.Rand given to NewServer: each Add draws one seed from it, which
// feeds that fault's own generator.
//
//	kind                      toxics (direction: the fault's Direction, default downstream)
//	latency                   "latency" {latency ms, jitter 0} when Jitter is 0;
//	                          otherwise outboxchaos_latency_jitter: Latency + a
//	                          seeded uniform draw in [-Jitter, +Jitter] per chunk
//	blackhole                 "timeout" {timeout: Timeout ms}; 0 holds the data
//	                          forever and nothing answers. Downstream, requests
//	                          still reach the server; on an established connection
//	                          that is a lost reply for every command. Removing it
//	                          closes the connections it held (toxiproxy's cleanup).
//	reset                     "reset_peer" {timeout: Timeout ms}: on the first data
//	                          after the timeout the connection is closed (with RST
//	                          on connections opened while the toxic was present)
//	down                      no toxic: the toxiproxy proxy is stopped, so its
//	                          listener is closed (new connections are refused) and
//	                          open connections are closed. Removing the last down
//	                          fault listens again on the same address (retried for
//	                          2 s should another process hold the port meanwhile).
//	bandwidth                 "bandwidth" {rate: Rate KB/s}
//	slicer                    "slicer" {average_size, size_variation 0, delay µs}
//	                          when Size is 0; otherwise outboxchaos_slicer, the
//	                          same cut with seeded sizes in Average ± Size
//	lost-reply-redis-add      outboxchaos_lost_reply_redis_drop (downstream), then
//	                          outboxchaos_lost_reply_redis_watch (upstream)
//	lost-reply-mysql-commit   outboxchaos_lost_reply_mysql_drop (downstream), then
//	                          outboxchaos_lost_reply_mysql_watch (upstream)
//	queue-error               outboxchaos_queue_error_rewrite (downstream), then
//	                          outboxchaos_queue_error_refuse (upstream)
//	commit-hold-mysql         outboxchaos_commit_hold_mysql (upstream)
//	sql-error                 outboxchaos_sql_error_answer (downstream), then
//	                          outboxchaos_sql_error_refuse (upstream); on
//	                          PostgreSQL (store=postgres)
//	                          outboxchaos_sql_error_postgres_answer, then
//	                          outboxchaos_sql_error_postgres_refuse
//	lost-reply-postgres-commit outboxchaos_lost_reply_postgres_drop (downstream)
//	commit-hold-postgres      outboxchaos_commit_hold_postgres (upstream)
//	redis-state               outboxchaos_queue_error_rewrite (downstream), then
//	                          outboxchaos_queue_error_refuse (upstream)
//	half-open                 outboxchaos_half_open (upstream), then
//	                          outboxchaos_half_open (downstream)
//	sql-read-only             sql-error's toxics, on either store
//
// Every PostgreSQL link also carries outboxchaos_postgres_statements
// (upstream) from its creation until it is closed; it belongs to no fault.
//
// # Lost replies
//
// A plain downstream blackhole loses every reply, and on a new connection it
// stops the client's handshake, so the command of interest is never sent. A
// lost-reply fault instead lets exactly the chosen request reach the server
// and drops its reply. toxiproxy runs a toxic per connection and per
// direction and never tells a toxic which connection it serves, so the two
// halves of a fault pair up through the data itself:
//
//  1. The watcher (upstream) parses the client's requests. On a matching
//     request it asks the fault whether to fire (times left, probability
//     drawn from the fault's seeded generator) and, if so, sends a marker
//     request carrying a fresh token just before it, then the request itself
//     and everything the client sends after it: requests are never lost.
//  2. The dropper (downstream) parses the server's replies. When one is the
//     marker's reply carrying a token its fault is waiting for, the
//     connection is found: that reply and every later one are dropped.
//
// The marker is a request without effects (an ECHO, a SELECT of a literal)
// that the server runs in order with the others. The client sees no answer
// (its read times out); the request took effect.
// Connections that lost a reply are closed when the fault is removed; all
// others pass untouched, and bytes held for parsing are forwarded. The
// dropper is added before the watcher, so it is on every connection the
// watcher can fire on. Times (default 1) bounds the firings; after them
// everything passes. A connection fires at most once.
//
// # Redis: RESP parsing (lost-reply-redis-add)
//
// A request is a RESP array ("*<n>\r\n") of bulk strings ("$<len>\r\n<bytes>
// \r\n"); its command name is the first bulk string. A request not starting
// with '*' is an inline command: one line, the name its first word. A job
// add is EVALSHA or EVAL (a BullMQ-style add is one Lua script). The watcher
// holds a command's first bytes only until its name is known (at most
// 64 KiB), then:
//   - EVALSHA/EVAL, alone or in a pipeline: the marker "ECHO <token>" goes
//     right before it, so replies to earlier pipelined commands still reach
//     the client; the rest of the pipeline reaches the server. The dropper
//     judges the add's own reply: a NOSCRIPT error means the script never
//     ran, so the error and later replies go through, the firing is given
//     back and the watcher watches that connection again (go-redis then
//     retries with EVAL); any other reply is lost with all that follow.
//   - MULTI: the transaction is held up to its EXEC or DISCARD (at most
//     16 MiB; a client quiet for 200 ms inside MULTI, i.e. one waiting for
//     each reply, gets its transaction released unexamined). An EXEC whose
//     transaction holds a job add fires with the marker before MULTI: the
//     whole transaction runs, its replies are lost. A marker is never put
//     inside a transaction (its queued reply would shift every later one).
//
// Replies are parsed as RESP2/RESP3 values (simple lines + - : , ( # _;
// bulk $ ! =; aggregates * ~ > of n elements, % of 2n, attribute | of 2n
// followed by the value it annotates). The marker's reply is a top-level
// bulk string of the token's length; the dropper holds only such a reply,
// and only until it is complete, so it never stalls other traffic.
// Streamed RESP3 types, which Redis does not send, stop the parsing; the
// connection then passes untouched.
//
// # Redis: the command log
//
// Every link whose dependency is "redis" carries, from its creation, two
// toxics that change nothing (redis_commands.go): the command reader
// (upstream) parses the client's requests and the reply reader
// (downstream) the server's replies, each forwarding every byte at once.
// Added before the link accepts a connection, they are first in their
// chains: the reader sees what the client sent, before any fault's
// toxic rewrites it. toxiproxy starts a connection's upstream link and
// then its downstream link, one connection after another from a single
// goroutine, creating each stateful toxic's state in turn; the two
// readers pair up through that order, so they share one queue of the
// connection's requests, answered in order as Redis answers them. Once
// Server.RecordCommands names the run's job ids (the needle, then
// digits), each request is recorded with its outcome when the request
// names a job id (anywhere in its first 64 KiB) or failed:
//   - answered, or error reply (a queue-error or redis-state refusal is the
//     error Redis gives the substituted command);
//   - dropped: a lost-reply marker's reply (which no client request asked
//     for) went by, and from it the dropper drops every reply, unless the
//     next is a NOSCRIPT error;
//   - closed: the connection ended (either side) before the reply;
//   - unread: the stream stopped being readable, or the client entered a
//     mode whose replies do not answer requests one for one (SUBSCRIBE,
//     MONITOR).
//
// A command queued inside MULTI takes its EXEC's outcome (an error reply
// when rejected while queued). A reply is read before the link's own
// downstream faults act on it: a reply a downstream latency or blackhole
// then holds past the client's timeout reads as answered. A server keeps
// at most 200000 records and counts the rest as lost (CommandsLost).
//
// # Redis: a broken queue (queue-error)
//
// Redis answers every command that writes a key of one queue
// ("<Prefix>:<Queue>:...") with an error reply, as it would for a broken key
// or a misconfigured queue, and everything else works: reads of that queue,
// other queues, other keys. Unlike an outage, it cannot be waited out or
// queued by a client, so every dispatcher meets transient failures.
//
// The refuser (upstream) holds each request until its name is known; a
// write is held to its end (at most 16 MiB, then it passes unexamined) and
// judged by the keys it writes: the KEYS of EVAL, EVALSHA and FCALL
// (numkeys, then the keys), the key arguments of a write command (SET,
// HSET, LPUSH, XADD, ZADD, DEL, MSET, LMOVE, ...). EVAL_RO, FCALL_RO and
// plain reads are never refused. A refused request is replaced by
// "<token>", an unknown command, so Redis itself answers it with an error
// reply at its own place in the reply stream: pipelined replies stay in
// order, and inside MULTI the command is rejected while queued, so EXEC
// discards the whole transaction (EXECABORT), as Redis does for any
// command rejected while queued. The rewriter (downstream) turns that
// error ("-ERR unknown command '<token>'...") into
// "-ERR outboxchaos: queue <Queue> is broken"; it holds each top-level
// reply only until its header line is complete. The fault counts the
// requests refused and the error replies rewritten (Proxy.Refused). A
// token answered after the fault was removed reaches the client as Redis's
// unknown-command error, still an error reply.
//
// # Half-open links (half-open)
//
// A half-open link accepts connections and bytes and never answers, and
// never closes, as a peer that vanished behind a NAT or a frozen TCP proxy
// does: the client's read waits for as long as the client lets it. Both
// directions take every chunk and drop it, as toxiproxy's "timeout" toxic
// with timeout 0 does (that toxic is the blackhole kind, one direction at
// a time). On a connection open when the fault starts, a statement or
// command sent since is held (its request never reaches the server; a
// reply on its way is dropped); a connection opened while it lasts is
// accepted and its handshake held (MySQL's greeting downstream, a Redis
// client's first command or PostgreSQL's startup upstream). The toxics
// tell the two apart by when their per-connection state is made: the
// fault is armed once both toxics are on the link, and a state made after
// that belongs to a new connection. With Handshake, the connections open
// when it starts are closed at once, so that every statement sent during
// the fault goes over a new connection whose handshake it holds. A
// client that gives up closes its connection, and the close passes to
// the server (which rolls back an open transaction); one that waits keeps
// whatever its server session holds. Removing the fault closes every
// connection it held, as the timeout toxic's cleanup does: the waiting
// read ends with EOF. The fault counts, per direction of a connection that
// it took bytes from, held (connections open when it started) and
// handshakes (connections opened during it), and closed (connections it
// closed at its start, Handshake).
//
// # Redis: a server state (redis-state)
//
// Redis answers every write (the same writes queue-error judges: the write
// commands and every EVAL, EVALSHA and FCALL), on any key, with the error
// reply of a state of the whole server, as Redis itself answers them: a
// replica during a failover ("-READONLY You can't write against a read only
// replica."), a restart still loading its data ("-LOADING Redis is loading
// the dataset in memory"), or maxmemory reached with noeviction ("-OOM
// command not allowed when used memory > 'maxmemory'."). Reads work. The
// toxics and their counts are queue-error's, with no queue to match.
//
// # MySQL: lock conflicts (sql-error)
//
// A share (Probability, drawn per statement from the fault's seeded
// generator; 0 means all) of the client's locking statements is answered
// with InnoDB's deadlock or lock wait timeout error instead of running, as
// a busy table answers them. A locking statement is a COM_QUERY or
// COM_STMT_PREPARE whose SQL, past leading whitespace and comments, starts
// with UPDATE or DELETE, or is a SELECT (or WITH) holding FOR UPDATE, FOR
// SHARE or LOCK IN SHARE MODE. The refuser (upstream) parses command
// packets as lost-reply-mysql-commit's watcher does and replaces a refused
// one with the marker query "SELECT '<token>' AS <token>", so the
// statement never reaches the server; it draws the answer, 1213 (SQLSTATE
// 40001, "Deadlock found when trying to get lock; try restarting
// transaction") or 1205 (HY000, "Lock wait timeout exceeded; try
// restarting transaction"), one in two. The answerer (downstream) spots the
// marker's result set as the lost-reply dropper does, drops it to its end
// (the row holding the token, then the EOF or OK packet after it) and
// sends in its place an ERR packet it builds itself: header 0xff, the code
// (2 bytes, little-endian), '#', the SQLSTATE, the message, with sequence
// id 1 (the first packet of the statement's reply). The fault counts the
// statements refused and the ERR packets sent (Proxy.Refused).
//
// Limits. InnoDB rolls a deadlocked transaction back; this fault rolls
// back nothing: what the transaction did before stays in it until the
// client rolls back, as every driver and ORM does on an error. A prepared
// statement is refused at its COM_STMT_PREPARE, so a client that prepares
// once and executes it many times (a statement cache) meets the fault only
// on its first use on a connection; the Go driver with interpolateParams
// and text-protocol clients meet it on every statement.
//
// # MySQL: failed statements
//
// Every link whose dependency is "mysql" carries, from its creation, two
// toxics that change nothing (mysql_statements.go), first in their chains
// and paired per connection as the Redis command log's are. The statement
// reader (upstream) takes each client command (a packet of sequence id 0)
// as the connection's command in flight, named by the first word of its
// SQL (a COM_QUERY, or a COM_STMT_EXECUTE by the verb its prepare had;
// the prepare's OK names the statement id) and a write when that word is
// UPDATE, INSERT, DELETE, REPLACE or COMMIT. The result reader
// (downstream) settles it by the server's packets. Once
// Server.RecordCommands is on, only the commands that failed are recorded
// in the same log, with the link's name:
//   - error: an ERR packet (0xff; its code and message kept), or the
//     sql-error marker's result in place of the reply (the reader sees the
//     marker before the answerer turns it into 1213 or 1205);
//   - dropped: the lost-reply marker's result went by (lost-reply-mysql-
//     commit): the command in flight and every later one;
//   - closed: the connection ended before any packet of the reply.
//
// A statement a fault holds (commit-hold-mysql) is recorded only if its
// connection ends before the reply. COM_QUIT, COM_STMT_CLOSE and
// COM_STMT_SEND_LONG_DATA get no reply and are not in flight. A connection
// that asks for TLS or compression is not read.
//
// # PostgreSQL: failed statements
//
// Every link whose dependency is "postgres" carries the same kind of pair
// (pg_failures.go), after the statement learner. The statement reader
// (upstream) queues what the connection awaits a reply to, in order: a
// simple Query (named by its SQL's first word), an Execute (named by the
// verb of the statement its portal was bound to: parsed on the connection,
// or known to the link from an earlier connection) and a Sync. The reply
// reader (downstream) settles them by the server's messages: a
// CommandComplete, an empty-query answer or a suspension ends an Execute;
// a ReadyForQuery ends a Query or a Sync (and what came before it); an
// ErrorResponse fails the Execute or Query in front (its SQLSTATE and
// message kept, or "refused by a fault" when it names the sql-error or
// sql-read-only token of the stand-in the fault sent in the statement's
// place), and the Executes after it up to the Sync, which the server
// skips, are dropped unrecorded. Only failures are recorded, error or
// closed (the connection ended first). A COMMIT reply that
// lost-reply-postgres-commit drops is not recorded as dropped: the reader
// sits on the server's side of the fault and sees the reply go by.
//
// # MySQL and PostgreSQL: read-only (sql-read-only)
//
// A server in read-only mode during a failover: every write of the client
// is answered with the server's read-only error instead of running, by
// sql-error's two toxics (the same refuser, answerer and counts), with
// another choice of statement and answer. On MySQL a write is a COM_QUERY
// or COM_STMT_PREPARE whose SQL, past leading whitespace, comments and
// opening parentheses, starts with INSERT, UPDATE, DELETE or REPLACE (a
// locking read runs on a read-only server), answered with 1290 (HY000,
// "The MariaDB server is running with the --read-only option so it cannot
// execute this statement"). On PostgreSQL a write is an INSERT, UPDATE,
// DELETE or MERGE, a SELECT with a locking clause, or a WITH holding any
// of them (a read-only transaction refuses them all), answered with 25006
// ("cannot execute UPDATE in a read-only transaction"); advisory locks run.
// Every write is refused while the fault lasts.
//
// # MySQL: packet parsing (lost-reply-mysql-commit)
//
// Every packet is a 3-byte little-endian payload length, a 1-byte sequence
// id, then the payload; a payload of 0xffffff bytes continues in the next
// packet. A client command is a packet with sequence id 0; its first byte
// is the command, 0x03 COM_QUERY followed by the SQL text. The watcher holds
// each command packet of at most 4 KiB until it is complete and matches
// COMMIT: the word COMMIT in any case, optionally followed by WORK, AND [NO]
// CHAIN, [NO] RELEASE, with any whitespace, comments (/* */, "-- ", #) and
// a trailing semicolon. On firing it sends the marker COM_QUERY
// "SELECT '<token>' AS <token>" (sequence id 0) before the COMMIT; the
// server runs both in order. The dropper spots the marker's result set, a
// column-count packet (sequence id 1, payload 0x01; MariaDB adds a
// metadata-follows byte) followed by a packet
// that carries the token, and drops it and everything after, the COMMIT's
// OK included. A handshake response (client sequence id 1) asking for TLS
// or compression makes the stream unreadable, so such a connection passes
// untouched. A client's protocol is request/response, so when COMMIT is
// sent no earlier reply is still on its way.
//
// # MySQL: a held COMMIT (commit-hold-mysql)
//
// The holder (upstream) finds COMMIT commands as the lost-reply watcher
// does. The first one the fault may still hold (Times, default 1) is kept
// back, with everything its client sends after it on that connection, for
// Hold; then all of it goes on and the connection passes untouched. The
// transaction's statements already ran, so its row locks stay held
// meanwhile: a finalize caught this way is still open while its lease runs
// out, as a process paused inside it would be. Removing the fault releases
// what it holds at once. Proxy.Held lists each held COMMIT with when it
// arrived and when it was sent on.
//
// # PostgreSQL: message parsing
//
// After startup every message is a type byte and a big-endian int32 length
// counting itself, then the body. The client's first messages have no type
// byte: a length, then a code (the protocol version 3.x of a
// StartupMessage, or an SSLRequest, GSSENCRequest or CancelRequest); a
// client's message starting with a 0 byte is one of those, since no type
// byte is 0. The server answers an SSLRequest or GSSENCRequest with one
// byte, 'N', 'S' or 'G', which the proxy relays: a scanner of the server's
// side tells it from a notice, a parameter status or a copy-in response of
// the same letter by the byte after it (a message's length starts with
// 0). A yes ('S', 'G') makes the stream encrypted and the connection passes
// untouched; so does any message type the side does not send, an
// implausible length or an unknown startup code (a misread stream).
// Filters hold only the few messages they may replace, only until they
// are complete (which their sender is bound to do); all others pass as
// they are read. The first 4 KiB of each body are read; a longer
// statement never matches.
//
// # PostgreSQL: a lost COMMIT reply (lost-reply-postgres-commit)
//
// Unlike MySQL's OK packet, PostgreSQL's CommandComplete names what it
// completes: its tag is COMMIT exactly when a COMMIT, END or COMMIT AND
// CHAIN committed, in the simple protocol (a Query, which is what pgx and
// node-postgres send for a COMMIT) or the extended one (an Execute of a
// portal bound to a COMMIT, named or not). A failed transaction's COMMIT
// says ROLLBACK, and a COMMIT outside a transaction block comes right after
// the warning 25P01 (no transaction in progress): neither committed
// anything, and neither fires. So the fault needs no watcher and no marker:
// its one toxic, the dropper (downstream), holds each CommandComplete while
// the fault may still fire and, on a COMMIT tag, draws the probability; on
// firing it drops that CommandComplete, the ReadyForQuery after it and
// everything after on the connection. The client sees no answer (its read
// times out, or its context ends); the transaction committed. As on MySQL,
// connections that lost a reply are closed when the fault is removed,
// Times bounds the firings and a connection fires at most once.
//
// # PostgreSQL: prepared statements
//
// A statement runs either as a Query, whose SQL is in the message, or as an
// Execute of a portal that a Bind made of a prepared statement, whose SQL
// was in its Parse. Clients with a statement cache (pgx's default mode)
// parse a statement once per connection and from then on send only Bind
// and Execute, and prepared statements live as long as their session, so
// a fault added to a pooled connection would never see the SQL it runs.
// Every PostgreSQL link therefore carries, from its creation, the statement
// toxic (upstream, pg_statements.go): it passes every byte at once and
// records the SQL of each named statement parsed on any of the link's
// connections. The upstream filters below follow, on their own connection,
// each Parse (unnamed or named), Bind and Close they read (a Query destroys
// the unnamed statement and portal), and look up a statement they never saw
// parsed in the link's record. Names are shared by the link's connections:
// pgx names a cached statement after a hash of its SQL, node-postgres by
// the name the code gives it; a name recorded with two texts (a client that
// numbers statements per connection) is ambiguous and never matches. A link
// not named after postgres has no record, and a statement parsed before
// the fault was added passes there.
//
// # PostgreSQL: lock conflicts (sql-error, store=postgres)
//
// A share (Probability, as on MySQL) of the client's locking statements is
// answered with a deadlock (40P01, "deadlock detected"), a serialization
// failure (40001, "could not serialize access due to concurrent update")
// or a lock timeout (55P03, "canceling statement due to lock timeout"),
// one in three, drawn from the fault's seeded generator. A locking
// statement is UPDATE, DELETE or MERGE, a SELECT with FOR UPDATE, FOR NO
// KEY UPDATE, FOR SHARE or FOR KEY SHARE, a SELECT calling an advisory
// lock function that waits (pg_advisory_lock, pg_advisory_xact_lock, their
// _shared forms; a turn taken under one meets the same conflicts), or a
// WITH statement holding any of them (words in strings, quoted identifiers
// and comments do not count). The server must end in the state a real lock conflict leaves: it
// aborts the statement, and in a transaction block the transaction, so
// that the client's next statements fail with 25P02 and its COMMIT rolls
// back, and its ReadyForQuery says so. The refuser (upstream) therefore
// replaces the message that would run a refused statement with a
// statement that fails on the server before it can touch a row: "SELECT
// '<token>'::int", whose parse analysis fails (22P02) quoting the token. A
// Query becomes a Query of it; an Execute becomes a Parse of it as a
// statement named by the token, so the client's unnamed statement and
// portals stay untouched and the server skips the rest of the client's
// batch to its Sync, as after any error there. The answerer (downstream)
// holds each ErrorResponse while a token is pending and replaces the one
// quoting a token with an ErrorResponse it builds itself: severity S and V
// ERROR, the code C, the message M and, for a deadlock, the server's hint
// H; the ReadyForQuery after it is the server's own ('E' in a transaction
// block, 'I' outside one). A locking statement sent inside a transaction
// that had already failed gets the server's own 25P02 through, unanswered:
// that is what the server would have said to the statement. The fault
// counts the statements refused and the errors answered.
//
// # PostgreSQL: a held COMMIT (commit-hold-postgres)
//
// The holder (upstream) finds COMMITs as the prepared-statement scan
// above does: a Query of a COMMIT or END (optionally WORK or TRANSACTION,
// AND [NO] CHAIN, with comments and a trailing ';'), or an Execute of a
// portal bound to one. It holds the first one the fault may still hold,
// with everything after it, for Hold, exactly as commit-hold-mysql does; a
// COMMIT's Parse and Bind go on, as they run nothing.
//
// Both parsers assume they start at a request or reply boundary. A toxic
// added to an open connection sees the chunks read after it was added; a
// client idle between requests (the normal state of a pooled connection)
// meets that assumption. A request the client was writing at that very
// moment can be misread; for RESP and PostgreSQL an unreadable stream then
// passes untouched, for MySQL a misread length may hide later commands
// from the watcher on that one connection. GSSAPI encryption on
// PostgreSQL (a server that answers 'G') is not recognised on the server's
// side: its tokens would be misread as copy-in responses.
package faultproxy
