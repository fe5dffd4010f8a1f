package mockagent

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWallIsSharedByEverySession(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	a := connect(t, Config{StateDir: state})
	b := connect(t, Config{StateDir: state})
	sa, sb := a.newSession(t), b.newSession(t)

	_, err := a.prompt(t, sa, "/wall before")
	require.NoError(t, err, "no wall file: the provider answers")

	require.NoError(t, SetWall(state, Wall{Up: true}))
	_, err = a.prompt(t, sa, "/wall one")
	re := rpcErr(t, err)
	assert.Contains(t, re.Message, "529")
	assert.Contains(t, re.Message, "overloaded_error")
	_, err = b.prompt(t, sb, "/wall two")
	rpcErr(t, err)
	_, err = b.prompt(t, sb, "continue") // inherits /wall
	rpcErr(t, err)

	require.NoError(t, SetWall(state, Wall{Up: true, Until: time.Now().Add(-time.Second)}))
	_, err = a.prompt(t, sa, "continue")
	require.NoError(t, err, "the wall ended at Until")
	text, _ := agentText(a.client.take())
	assert.Contains(t, text, "Echo: continue")

	require.NoError(t, SetWall(state, Wall{Up: false}))
	_, err = b.prompt(t, sb, "/wall three")
	require.NoError(t, err)

	reqs, err := WallRequests(state)
	require.NoError(t, err)
	var failed []bool
	for _, r := range reqs {
		failed = append(failed, r.Failed)
	}
	assert.Equal(t, []bool{false, true, true, true, false, false}, failed)
	assert.Equal(t, "/wall one", reqs[1].Prompt)
	assert.Equal(t, sb, reqs[2].Session)
}
