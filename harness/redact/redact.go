package redact

import (
	"regexp"
	"strings"
)

// Mask replaces every password String removes.
const Mask = "***"

var (
	// scheme://user:password@host: the password runs to the last '@' of the
	// token, as URL parsers and the MySQL driver read it.
	urlUserinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://[^\s:@/?#"'<>]*):([^\s"'<>]+)@`)
	// Go MySQL DSN: user:password@tcp(host)/db, user:password@unix(...)/db,
	// user:password@/db.
	mysqlDSN = regexp.MustCompile(`([^\s"'=:@/()<>]*):([^\s"'<>]+)@(\w*\(|/)`)
	// password='...', PGPASSWORD="...", "password": "...": a quoted value,
	// which may hold spaces and escaped quotes (libpq's key=value DSNs).
	quotedPassword = regexp.MustCompile(`(?i)((?:^|[^\w.\-])[\w.\-]*(?:password|passwd|pwd|requirepass|masterauth)["']?\s*[=:]\s*)(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")`)
	// password=..., MYSQL_PWD=..., "password":"...", requirepass=...
	passwordParam = regexp.MustCompile(`(?i)((?:^|[^\w.\-])[\w.\-]*(?:password|passwd|pwd|requirepass|masterauth)["']?\s*[=:]\s*["']?)([^\s&;,"'}<>]+)`)
	// --password secret, --requirepass secret
	passwordFlag = regexp.MustCompile(`(?i)(--(?:password|passwd|pass|requirepass|masterauth)\s+)([^\s-][^\s]*)`)
)

// String removes from s every password it has the shape of and every
// password registered with Register: "user:pass@" becomes "user:***@",
// "password=pass" becomes "password=***". An empty password
// ("root:@tcp(...)") is left as it is.
func String(s string) string {
	s = known.replace(s)
	if strings.IndexByte(s, '@') >= 0 {
		s = urlUserinfo.ReplaceAllString(s, "${1}:"+Mask+"@")
		s = mysqlDSN.ReplaceAllStringFunc(s, maskDSN)
	}
	if strings.ContainsAny(s, "=:") {
		s = quotedPassword.ReplaceAllStringFunc(s, maskQuoted)
		s = passwordParam.ReplaceAllStringFunc(s, maskParam)
	}
	if strings.Contains(s, "--") {
		s = passwordFlag.ReplaceAllString(s, "${1}"+Mask)
	}
	return s
}

// workingDirs are the shell's variables whose names end in PWD and that
// hold a directory, not a password.
var workingDirs = regexp.MustCompile(`(?:^|[^\w.\-])(?:OLD)?PWD=["']?$`)

func maskParam(m string) string {
	sub := passwordParam.FindStringSubmatch(m)
	if workingDirs.MatchString(sub[1]) {
		return m
	}
	return sub[1] + Mask
}

// maskQuoted masks a quoted value, keeping its quotes; an empty one (no
// password) and the shell's working directories stay.
func maskQuoted(m string) string {
	sub := quotedPassword.FindStringSubmatch(m)
	if workingDirs.MatchString(sub[1]) {
		return m
	}
	switch {
	case sub[2] != "":
		return sub[1] + "'" + Mask + "'"
	case sub[3] != "":
		return sub[1] + `"` + Mask + `"`
	}
	return m
}

func maskDSN(m string) string {
	sub := mysqlDSN.FindStringSubmatch(m)
	if sub[2] == Mask {
		return m
	}
	return sub[1] + ":" + Mask + "@" + sub[3]
}

// Map returns a copy of m with its keys and values passed through String.
func Map(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[String(k)] = String(v)
	}
	return out
}

// Strings returns a copy of list with each element passed through String.
func Strings(list []string) []string { return Slice(list, String) }

// Slice returns a copy of list with each element redacted by f (a record's
// redaction: its fields passed through String), nil for nil.
func Slice[T any](list []T, f func(T) T) []T {
	if list == nil {
		return nil
	}
	out := make([]T, len(list))
	for i, v := range list {
		out[i] = f(v)
	}
	return out
}

// Fields passes each string the pointers name through String, in place:
// the free-text fields of a record being redacted.
func Fields(ps ...*string) {
	for _, p := range ps {
		*p = String(*p)
	}
}

// Error returns err with its message passed through String (nil for nil).
// The result wraps nothing: a password must not come back through Unwrap.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return redactedError(String(err.Error()))
}

type redactedError string

func (e redactedError) Error() string { return string(e) }
