package dispatchkit

import (
	"strings"
	"testing"
	"time"
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

func TestIdleWaitBacksOffOnFailuresUpToASecond(t *testing.T) {
	require.Equal(t, 50*time.Millisecond, IdleWait(50*time.Millisecond, 0))
	require.Equal(t, 200*time.Millisecond, IdleWait(50*time.Millisecond, 2))
	require.Equal(t, time.Second, IdleWait(50*time.Millisecond, 20))
	require.Equal(t, 3*time.Second, IdleWait(3*time.Second, 5), "never below the poll interval")
}
