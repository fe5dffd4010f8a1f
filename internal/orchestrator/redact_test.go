package orchestrator

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// plantedSecrets are the kinds of secret an agent's output may carry.
var plantedSecrets = []string{
	"sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2", "SK-ANT-API03-UPPERCASEKEY12345", "AKIAIOSFODNN7EXAMPLE",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "xoxb-123456789012-1234567890123-AbCdEfGhIj",
	"sk_live_51HxYzAbCdEfGhIjKlMn", "hunter2hunter2", "tok-3f9a8b7c6d5e4f3a", "MIIEpAIBAAKCAQEAsecretkeybody",
	plantedDaemonToken,
}

// plantedDaemonToken stands for the daemon's own access token, which serve
// registers with the sanitiser.
const plantedDaemonToken = "4f1d2c3b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1"

func init() { routingerr.RegisterSecret(plantedDaemonToken) }

// plantedText holds every planted secret the way tools and providers print them.
const plantedText = "Here are the keys. anthropic sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2 and SK-ANT-API03-UPPERCASEKEY12345\n" +
	"aws AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n" +
	"github ghp_abcdefghijklmnopqrstuvwxyz0123456789 github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv " +
	"slack xoxb-123456789012-1234567890123-AbCdEfGhIj stripe sk_live_51HxYzAbCdEfGhIjKlMn " +
	"git https://bob:hunter2hunter2@example.com/r.git curl -H 'Authorization: Bearer tok-3f9a8b7c6d5e4f3a' done\n" +
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAsecretkeybody\n-----END RSA PRIVATE KEY-----\n" +
	"and the daemon's own 4f1d2c3b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1. That is all."

// leaks lists the planted secrets text shows, even in part (their first
// or last 8 bytes).
func leaks(text string) []string {
	var out []string
	for _, s := range plantedSecrets {
		if strings.Contains(text, s[:8]) || strings.Contains(text, s[len(s)-8:]) {
			out = append(out, s)
		}
	}
	return out
}

// TestRedactorStreamsLikeWhole: whatever the chunking, the streamed text
// never shows a secret, not even split over chunks, and ends as the
// sanitised whole.
func TestRedactorStreamsLikeWhole(t *testing.T) {
	t.Parallel()
	want := routingerr.Sanitize(plantedText)
	if l := leaks(want); len(l) > 0 {
		t.Fatalf("Sanitize leaves %v", l)
	}
	for size := 1; size <= 23; size++ {
		var r redactor
		shown := ""
		apply := func(delta string, drop int) {
			shown = shown[:len(shown)-drop] + delta
			if l := leaks(shown); len(l) > 0 {
				t.Fatalf("chunks of %d: shown text leaks %v: %q", size, l, shown)
			}
		}
		for i := 0; i < len(plantedText); i += size {
			apply(r.next(plantedText[i:min(i+size, len(plantedText))], false))
		}
		apply(r.next("", true))
		if shown != want {
			t.Fatalf("chunks of %d:\n got %q\nwant %q", size, shown, want)
		}
		if len(r.window) > redactWindow+redactContext {
			t.Errorf("chunks of %d: window kept %d bytes", size, len(r.window))
		}
	}
}

// TestRedactorWindowStaysSmall: a long reply costs each chunk its window,
// not the whole text so far.
func TestRedactorWindowStaysSmall(t *testing.T) {
	t.Parallel()
	var r redactor
	longest := 0
	line := "a plain line of reply text without any newline in it, going on and on "
	for range 2000 {
		r.next(line, false)
		longest = max(longest, len(r.window))
	}
	if longest > redactWindow+len(line) {
		t.Errorf("window grew to %d bytes", longest)
	}
}

// TestRedactorWindowStaysBoundedWithoutWhitespace: a reply with no space or
// newline at all (the mock's /stream) is held back at most redactMaxHold,
// then shown, and its window does not keep growing.
func TestRedactorWindowStaysBoundedWithoutWhitespace(t *testing.T) {
	t.Parallel()
	var r redactor
	var shown strings.Builder
	longest := 0
	chunk := strings.Repeat("x", 20)
	const chunks = 20000 // 400 KB, six times redactMaxHold
	for range chunks {
		d, drop := r.next(chunk, false)
		if drop != 0 {
			t.Fatalf("drop %d", drop)
		}
		shown.WriteString(d)
		longest = max(longest, len(r.window))
	}
	d, _ := r.next("", true)
	shown.WriteString(d)
	if longest > redactMaxHold+2*len(chunk) {
		t.Errorf("window grew to %d bytes", longest)
	}
	if shown.Len() != chunks*len(chunk) {
		t.Errorf("shown %d bytes of %d", shown.Len(), chunks*len(chunk))
	}
}

// dumpDB returns every value of every table of the daemon's database.
func (h *harness) dumpDB() string {
	h.t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.dataDir, "orchestratord.db")+"?mode=ro")
	require.NoError(h.t, err)
	defer db.Close()
	tables, err := db.QueryContext(h.ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	require.NoError(h.t, err)
	var names []string
	for tables.Next() {
		var n string
		require.NoError(h.t, tables.Scan(&n))
		names = append(names, n)
	}
	require.NoError(h.t, tables.Close())
	var b strings.Builder
	for _, n := range names {
		rows, err := db.QueryContext(h.ctx, `SELECT * FROM "`+n+`"`)
		require.NoError(h.t, err)
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			require.NoError(h.t, rows.Scan(ptrs...))
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v\t", v)
			}
			b.WriteString("\n")
		}
		require.NoError(h.t, rows.Close())
	}
	return b.String()
}

// TestNoPlantedSecretReachesTheStore: an agent whose replies and errors
// carry secrets (and a user who pastes them) leaves none in the database
// (messages, events, executions, pending retries) or in a replay from seq
// 0, while the reply itself is still shown.
func TestNoPlantedSecretReachesTheStore(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/conn-closed:1 "+plantedText, nil)
	sid := v.Sessions[0].ID
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	require.NotEmpty(t, leaks(plantedText))
	if l := leaks(h.dumpDB()); len(l) > 0 {
		t.Errorf("while the retry is parked, the database holds %v", l)
	}
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	f.until(isState(store.SessionWaitingForInput))

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: plantedText}))
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	f.until(isState(store.SessionWaitingForInput))
	agents := byRole(h.messages(sid), "agent")
	require.NotEmpty(t, agents)
	last := agents[len(agents)-1].Text
	require.Contains(t, last, "Here are the keys.")
	require.Contains(t, last, "That is all.")
	require.Contains(t, last, routingerr.Redacted)

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/auth " + plantedText}))
	f.until(isBanner)
	f.until(isState(store.SessionFailed))

	dump := h.dumpDB()
	if l := leaks(dump); len(l) > 0 {
		t.Errorf("the database holds %v", l)
	}
	require.Contains(t, dump, "output_text", "the dump reads the executions table")
	// The evidence of a failure whose error text carries the secrets.
	ev := routingerr.Evidence{Agent: "mock", Phase: routingerr.PhaseStreaming, HasRPCError: true, RPCCode: -32603,
		RPCMessage: "Internal error: " + plantedText, RPCData: `{"details":"` + plantedText + `"}`,
		StderrTail: plantedText, Err: plantedText, OutputText: plantedText, ExitStatus: "exit status 1"}
	rt := h.svc.loaded(sid)
	rt.mu.Lock()
	h.svc.saveExecution(rt, &turn{id: "t"}, ev, routingerr.Classify(ev, h.clock.Now()))
	rt.mu.Unlock()
	execs, err := h.db.ListExecutions(h.ctx, sid)
	require.NoError(t, err)
	require.Contains(t, string(execs[len(execs)-1].Evidence), "Here are the keys", "the evidence is kept, sanitised")
	if l := leaks(h.dumpDB()); len(l) > 0 {
		t.Errorf("the executions history holds %v", l)
	}

	replay := h.follow(sid, 0)
	var all strings.Builder
	for _, n := range replay.all {
		all.Write(n.Payload)
	}
	if l := leaks(all.String()); len(l) > 0 {
		t.Errorf("a replay from seq 0 returns %v", l)
	}
}
