// Package redact is the one redaction of the harness: everything that writes
// into a run folder (the recorded history, results.json, junit.xml, the
// report page, the summary page and the instances' logs) passes its text
// through String, so no file of a run folder carries a password.
//
// String removes two kinds of secret:
//
//   - Passwords by shape: the password of every URL with userinfo
//     (redis://user:pass@host, postgres://user:pass@host/db), of every Go
//     MySQL DSN (user:pass@tcp(host)/db, user:pass@unix(...)/db,
//     user:pass@/db), of password parameters (password=..., MYSQL_PWD=...,
//     PGPASSWORD=..., "password":"...", requirepass ..., a URL's
//     ?password=...), quoted values whole (libpq's key=value DSNs write
//     password='a b\'c'; a shell's PGPASSWORD="a b"), and of --password
//     style flags. It errs on the side of removing too much: text
//     that looks like a password goes. The shell's PWD and OLDPWD (working
//     directories, printed by every `env`) are the exception.
//   - Passwords known to the process: Register records the passwords of the
//     DSNs and URLs the harness was given (env.Open registers its MySQL DSN
//     and Redis URL), and String replaces every occurrence of each, whatever
//     surrounds it, as written, URL-decoded, and escaped the ways a URL
//     writes it (userinfo, path, query: a DSN's "a:b" password reaches a
//     dispatcher's OUTBOX_MYSQL_URL as "a%3Ab"). A dispatcher that prints a password alone (MY_PASS=...,
//     or its configuration as a table) is covered by this rule only.
//     Passwords shorter than MinKnown bytes are not registered: masking every
//     "ab" of a log would destroy it, and the shape rules still apply.
//
// Each secret becomes Mask. String is idempotent: String(String(s)) ==
// String(s).
package redact
