package adapters

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBlackBoxDeclaresNoCrashPoints(t *testing.T) {
	for _, name := range []string{"reference", "mutant:unfenced-finalize"} {
		a, err := Open(name)
		if err != nil {
			t.Skipf("%s: %v", name, err)
		}
		require.True(t, a.Capabilities().CrashPoints, name)
		b, err := Open(name + BlackBoxSuffix)
		require.NoError(t, err)
		require.Equal(t, a.Name()+"+blackbox", b.Name())
		require.False(t, b.Capabilities().CrashPoints, "crash points declared absent")
		require.Equal(t, a.Capabilities().Tuning, b.Capabilities().Tuning)
		require.Equal(t, a.Capabilities().GracefulTerm, b.Capabilities().GracefulTerm)
		require.Equal(t, a.Schema(), b.Schema())
	}
	_, err := Open("x.yaml+blackbox")
	require.ErrorContains(t, err, "crash_points: false")
	_, err = Open("nonsense+blackbox")
	require.ErrorContains(t, err, "not known")
}
