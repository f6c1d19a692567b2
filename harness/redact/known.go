package redact

import (
	"net/url"
	"sort"
	"strings"
	"sync"
)

// MinKnown is the shortest password Register records.
const MinKnown = 3

// known holds the passwords registered in this process.
var known = &secrets{}

type secrets struct {
	mu   sync.RWMutex
	list []string // longest first, so a password that contains another goes whole
}

// Register records the passwords in each of values (DSNs, URLs, command
// lines: whatever Passwords finds), as written, URL-decoded and escaped
// (forms), so that String removes them wherever they appear later. It is safe
// to call from several goroutines; registered passwords stay for the life of
// the process.
func Register(values ...string) {
	var add []string
	for _, v := range values {
		for _, p := range Passwords(v) {
			add = append(add, p)
			dec, err := url.PathUnescape(p)
			if err != nil {
				dec = p
			}
			add = append(add, forms(dec)...)
		}
	}
	known.add(add)
}

// RegisterPassword records one password given alone (a server's
// requirepass, say), as it is and escaped as URLs write it.
func RegisterPassword(p string) { known.add(forms(p)) }

// forms returns p and the ways a URL writes it: escaped for the userinfo
// (what url.UserPassword produces, as the harness builds the dispatchers'
// URLs), for a path segment and for a query. A dispatcher that prints the
// password cut from its URL prints one of these.
func forms(p string) []string {
	userinfo := strings.TrimSuffix(strings.TrimPrefix(url.UserPassword("", p).String(), ":"), "@")
	return []string{p, userinfo, url.PathEscape(p), url.QueryEscape(p)}
}

func (k *secrets) add(ps []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range ps {
		if len(p) < MinKnown || p == Mask || contains(k.list, p) {
			continue
		}
		k.list = append(k.list, p)
	}
	sort.SliceStable(k.list, func(i, j int) bool { return len(k.list[i]) > len(k.list[j]) })
}

func (k *secrets) replace(s string) string {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, p := range k.list {
		if strings.Contains(s, p) {
			s = strings.ReplaceAll(s, p, Mask)
		}
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Passwords returns the passwords String would remove from s by their shape
// (URL userinfo, MySQL DSN, password parameters and flags), in order.
func Passwords(s string) []string {
	var out []string
	add := func(p string) {
		if p != "" && p != Mask && !contains(out, p) {
			out = append(out, p)
		}
	}
	for _, m := range quotedPassword.FindAllStringSubmatch(s, -1) {
		if !workingDirs.MatchString(m[1]) {
			add(unquote(m[2] + m[3]))
		}
	}
	// The other shapes read what is left once quoted values are masked, so
	// that none of them takes a quoted value's first word for it.
	rest := quotedPassword.ReplaceAllStringFunc(s, maskQuoted)
	for _, re := range []interface {
		FindAllStringSubmatch(string, int) [][]string
	}{urlUserinfo, mysqlDSN, passwordParam, passwordFlag} {
		for _, m := range re.FindAllStringSubmatch(rest, -1) {
			add(m[2])
		}
	}
	return out
}

// unquote undoes the backslash escapes of a quoted value (libpq's
// key=value DSNs write a quote in a value as \' and a backslash as \\).
func unquote(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
