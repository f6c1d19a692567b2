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
// lines: whatever Passwords finds), in their written and their URL-decoded
// form, so that String removes them wherever they appear later. It is safe
// to call from several goroutines; registered passwords stay for the life of
// the process.
func Register(values ...string) {
	var add []string
	for _, v := range values {
		for _, p := range Passwords(v) {
			add = append(add, p)
			if dec, err := url.PathUnescape(p); err == nil && dec != p {
				add = append(add, dec)
			}
		}
	}
	known.add(add)
}

// RegisterPassword records one password as it is, for a password that was
// given alone (a server's requirepass, say).
func RegisterPassword(p string) { known.add([]string{p}) }

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
	for _, re := range []interface {
		FindAllStringSubmatch(string, int) [][]string
	}{urlUserinfo, mysqlDSN, passwordParam, passwordFlag} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if p := m[2]; p != "" && p != Mask && !contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}
