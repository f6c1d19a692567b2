package clockskew

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Mechanisms an adapter may declare.
const (
	None      = "none"
	Faketime  = "faketime"
	GoOverlay = "go-overlay"
)

// Mechanisms lists the values of capabilities.clock.
func Mechanisms() []string { return []string{Faketime, GoOverlay, None} }

// Known tells whether m is a mechanism name ("" is none).
func Known(m string) bool {
	switch m {
	case "", None, Faketime, GoOverlay:
		return true
	}
	return false
}

// Usable tells whether m can skew a clock at all.
func Usable(m string) bool { return m == Faketime || m == GoOverlay }

// libPaths are where Debian's faketime package puts libfaketime.
var libPaths = []string{
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/local/lib/faketime/libfaketime.so.1",
}

// ErrNoLibfaketime says libfaketime is not installed.
var ErrNoLibfaketime = errors.New("libfaketime is missing: install Debian's faketime package (apt-get install faketime)")

// Libfaketime returns the path of libfaketime.so.1, or ErrNoLibfaketime.
func Libfaketime() (string, error) {
	for _, p := range libPaths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", ErrNoLibfaketime
}

// Missing says why mechanism m cannot skew a process here, or "".
func Missing(m string) string {
	switch m {
	case Faketime:
		if _, err := Libfaketime(); err != nil {
			return err.Error()
		}
		return ""
	case GoOverlay:
		return ""
	}
	return "the adapter declares no way to skew its clock (capabilities.clock: none); a static Go binary needs clock: go-overlay, a dynamically linked one clock: faketime"
}

// Offset formats a skew as FAKETIME's relative form: "-10s", "+90s". Only
// whole seconds, non-zero.
func Offset(d time.Duration) (string, error) {
	if d == 0 || d%time.Second != 0 {
		return "", fmt.Errorf("clock skew %s: use a non-zero whole number of seconds", d)
	}
	return fmt.Sprintf("%+ds", int64(d/time.Second)), nil
}

// Env returns the variables that skew a process of mechanism m by d.
func Env(m string, d time.Duration) ([]string, error) {
	off, err := Offset(d)
	if err != nil {
		return nil, err
	}
	switch m {
	case Faketime:
		lib, err := Libfaketime()
		if err != nil {
			return nil, err
		}
		return []string{"LD_PRELOAD=" + lib, "FAKETIME=" + off, "FAKETIME_DONT_FAKE_MONOTONIC=1"}, nil
	case GoOverlay:
		return []string{"FAKETIME=" + off}, nil
	}
	return nil, errors.New(Missing(m))
}

// Merge adds extra to a full environment: a key already there is replaced,
// except LD_PRELOAD, to which ours is prepended.
func Merge(env, extra []string) []string {
	out := append([]string(nil), env...)
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		replaced := false
		for i, old := range out {
			ok, ov, _ := strings.Cut(old, "=")
			if ok != k {
				continue
			}
			if k == "LD_PRELOAD" && ov != "" {
				v = v + ":" + ov
			}
			out[i], replaced = k+"="+v, true
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}
