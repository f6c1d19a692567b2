package dispatchkit

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestTruncateErrorKeepsWholeCharacters(t *testing.T) {
	require.Equal(t, "short", TruncateError("short"))
	long := strings.Repeat("é", 600) // 1200 bytes
	got := TruncateError(long)
	require.LessOrEqual(t, len(got), MaxLastError)
	require.True(t, utf8.ValidString(got))
	require.Equal(t, 512, utf8.RuneCountInString(got))
}

func TestInListAndArgs(t *testing.T) {
	require.Equal(t, "(?)", InList(1))
	require.Equal(t, "(?,?,?)", InList(3))
	require.Equal(t, []any{int64(1), int64(2)}, Args([]int64{1, 2}))
	require.Equal(t, []any{"a"}, Args([]string{"a"}))
}
