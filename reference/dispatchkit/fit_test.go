package dispatchkit

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestFitErrorCutsToTheColumnOnACharacterBoundary(t *testing.T) {
	text := strings.Repeat("é€🚫", 40) // 120 characters, 360 bytes
	for _, width := range []int{1, 2, 3, 64, 119} {
		got := FitError(text, width)
		require.True(t, utf8.ValidString(got), "width %d", width)
		require.Equal(t, width, utf8.RuneCountInString(got), "width %d", width)
	}
	require.Equal(t, text, FitError(text, 120))
	require.Equal(t, text, FitError(text, 0), "0 is the contract's width")
}

func TestFitErrorKeepsToMaxLastErrorBytes(t *testing.T) {
	got := FitError(strings.Repeat("🚫", 1000), MaxLastError)
	require.True(t, utf8.ValidString(got))
	require.LessOrEqual(t, len(got), MaxLastError)
	require.Equal(t, MaxLastError/4, utf8.RuneCountInString(got))
}

func TestFitErrorReplacesInvalidUTF8(t *testing.T) {
	got := FitError("queue \xf0\x9f\x9a", 64)
	require.True(t, utf8.ValidString(got))
	require.Equal(t, "queue \uFFFD", got)
	// A text cut by bytes inside a character, as a naive truncation leaves it.
	cut := strings.Repeat("€", 10)[:7]
	require.Equal(t, "€€\uFFFD", FitError(cut, 64))
}
