package history

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDataJobID(t *testing.T) {
	require.Equal(t, "j1", DataJobID(`{"jobId":"j1","x":1}`))
	require.Equal(t, "12345678901234567890", DataJobID(`{"jobId":12345678901234567890}`))
	require.Empty(t, DataJobID(`{"other":1}`))
	require.Empty(t, DataJobID(`not json`))
	require.Empty(t, DataJobID(``))
}
