package mockagent

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// /leak streams its error line, then fails with it as a 529 whose message
// and data carry every planted secret; the second prompt recovers.
func TestLeakCarriesThePlantedSecrets(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	planted := []string{"AKIAZZZZCHAOSTEST001", "ghp_plantedplantedplantedplanted0000"}
	require.NoError(t, SetLeak(state, planted))
	p := connect(t, Config{StateDir: state})
	sid := p.newSession(t)

	_, err := p.prompt(t, sid, "/leak:1 ship it")
	re := rpcErr(t, err)
	assert.Equal(t, -32603, re.Code)
	streamed, _ := agentText(p.client.take())
	assert.Contains(t, re.Message, streamed, "the streamed text is the error line")
	for _, s := range planted {
		assert.Contains(t, re.Message, s)
		assert.Contains(t, streamed, s)
	}
	assert.Contains(t, re.Message, "529")

	resp, err := p.prompt(t, sid, "/leak:1 ship it")
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, resp.StopReason)
	text, _ := agentText(p.client.take())
	assert.Equal(t, "Recovered after 1 failures: Echo: /leak:1 ship it", text)
}

func TestLeakDefaultsToFakeSecrets(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir()})
	sid := p.newSession(t)
	_, err := p.prompt(t, sid, "/leak")
	msg := rpcErr(t, err).Message
	for _, s := range FakeSecrets {
		assert.Contains(t, msg, s)
	}
}

// Every prompt is logged with the agent session it reached, across processes.
func TestReceivedPromptsLogsEveryPrompt(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	none, err := ReceivedPrompts(state)
	require.NoError(t, err)
	assert.Empty(t, none)

	p := connect(t, Config{StateDir: state})
	sid := p.newSession(t)
	_, err = p.prompt(t, sid, "one")
	require.NoError(t, err)
	_, err = p.prompt(t, sid, "/overloaded two")
	require.Error(t, err)
	p.close()
	q := connect(t, Config{StateDir: state})
	sid2 := q.newSession(t)
	_, err = q.prompt(t, sid2, "three")
	require.NoError(t, err)

	got, err := ReceivedPrompts(state)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, []string{"one", "/overloaded two", "three"}, []string{got[0].Text, got[1].Text, got[2].Text})
	assert.Equal(t, []string{sid, sid, sid2}, []string{got[0].Session, got[1].Session, got[2].Session})
	assert.False(t, got[0].At.IsZero())
}
