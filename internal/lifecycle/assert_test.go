package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// noErr fails the test, showing the evidence a failed start or prompt carried.
func noErr(t *testing.T, err error) {
	t.Helper()
	require.NoError(t, err, "evidence %+v", evidenceOf(err))
}
