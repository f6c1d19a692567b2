package spelling

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDistance(t *testing.T) {
	require.Equal(t, 3, Distance("kitten", "sitting"))
	require.Equal(t, 0, Distance("", ""))
	require.Equal(t, 4, Distance("", "abcd"))
	require.Equal(t, 1, Distance("lease", "leas"))
}

func TestNearestAndLikely(t *testing.T) {
	vars := []string{"OUTBOX_LEASE", "OUTBOX_PUBLISH_TIMEOUT", "OUTBOX_DEDUPE_HORIZON"}
	got, d := Nearest("OUTBOX_PUBLISH_TIMOUT", vars)
	require.Equal(t, "OUTBOX_PUBLISH_TIMEOUT", got)
	require.Equal(t, 1, d)
	require.Equal(t, "OUTBOX_DEDUPE_HORIZON", Likely("outbox_dedup_horizon", vars), "case is ignored")
	require.Equal(t, "", Likely("colour", []string{"table", "status"}), "far names are no suggestion")
	none, d := Nearest("x", nil)
	require.Equal(t, "", none)
	require.Equal(t, -1, d)
}
