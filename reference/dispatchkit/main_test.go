package dispatchkit

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

type runFunc func(ctx context.Context) error

func (f runFunc) Run(ctx context.Context) error { return f(ctx) }

func TestMainExitCodes(t *testing.T) {
	var out bytes.Buffer
	code := Main("x", &out, nil, func([]string) (Runner, error) { return nil, ConfigError(errors.New("bad\nvalue")) })
	require.Equal(t, 2, code)
	require.Equal(t, "x: bad value\n", out.String(), "one line on stderr")

	out.Reset()
	require.Equal(t, 1, Main("x", &out, nil, func([]string) (Runner, error) { return nil, errors.New("no db") }))
	require.Equal(t, "x: no db\n", out.String())

	out.Reset()
	require.Equal(t, 1, Main("x", &out, nil, func([]string) (Runner, error) {
		return runFunc(func(context.Context) error { return errors.New("close failed") }), nil
	}))
	require.Equal(t, 0, Main("x", &out, nil, func([]string) (Runner, error) {
		return runFunc(func(context.Context) error { return nil }), nil
	}))
	require.Nil(t, ConfigError(nil))
}
