package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// modelJS reads what the chat header's meta line and the open task's list
// entry say about agent and model.
const modelJS = `(() => {
	const m = document.querySelector('#task-meta .meta-model');
	const l = document.querySelector('#tasks [aria-current="true"] .task-agent');
	return { Header: m ? m.textContent : '', HeaderAgent: (document.querySelector('#task-meta .meta-agent') || {}).textContent || '',
		List: l ? l.textContent : '' };
})()`

type modelView struct{ Header, HeaderAgent, List string }

// The header and the task list show which agent and model a task uses:
// the model the agent reports by its name (the mock's "Mock Fast"), the
// one a profile chose over ACP (mock-smart), one the agent announces mid-session
// (/model@…), and after a reload; a profile whose agent reports no model
// shows the model the profile names.
func TestHeaderAndListShowAgentAndModel(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "agents.yaml")
	mockState := t.TempDir()
	yaml := fmt.Sprintf(`agents:
  smart:
    command: %[1]q
    args: [mock-agent, --state-dir, %[2]q]
    model: mock-smart
  quiet:
    command: %[1]q
    args: [mock-agent, --state-dir, %[2]q, --models, none]
    model: claimed-model
`, daemontest.Binary, mockState)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, cfg)
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))

	waitModel := func(what, header, list string) {
		t.Helper()
		tb.waitJS(what, fmt.Sprintf(`((v) => v.Header === %q && v.List === %q)(%s)`, header, list, modelJS), 20*time.Second)
	}
	tb.createTask("hello", "")
	waitModel("the mock's own model", "model Mock Fast", "mock · Mock Fast")
	if v := eval[modelView](tb, modelJS); !strings.HasPrefix(v.HeaderAgent, "Agent mock") {
		t.Errorf("the header names the agent as %q", v.HeaderAgent)
	}
	tb.screenshotPage("model-header-list.png")

	// A model the agent announces later.
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "/model@mock-smart think harder"))
	tb.pressEnter(false)
	waitModel("the announced model", "model Mock Smart", "mock · Mock Smart")

	// The profile's model, chosen over ACP.
	tb.choose("nt-agent", "smart")
	if info := eval[string](tb, `document.getElementById('nt-agent-info').textContent`); !strings.Contains(info, "model mock-smart") {
		t.Errorf("the New task form's agent line reads %q, without the profile's model", info)
	}
	tb.createTask("hello smart", "")
	waitModel("the profile's model", "model Mock Smart", "smart · Mock Smart")

	// An agent that reports none: the profile's model, said to be the profile's.
	tb.choose("nt-agent", "quiet")
	tb.createTask("hello quiet", "")
	waitModel("the profile's model of a silent agent", "model claimed-model", "quiet · claimed-model")
	if title := eval[string](tb, `document.querySelector('#task-meta .meta-model').title`); !strings.Contains(title, "profile") {
		t.Errorf("the model's tooltip %q does not say it comes from the profile", title)
	}

	// A reload shows what was reported, from the daemon's store.
	tb.open(d.PageURL(""))
	tb.waitJS("the list", `document.querySelectorAll('#tasks .task').length === 3`, 10*time.Second)
	agents := eval[[]string](tb, `[...document.querySelectorAll('#tasks .task-agent')].map((e) => e.textContent)`)
	want := []string{"quiet · claimed-model", "smart · Mock Smart", "mock · Mock Smart"} // newest first
	if strings.Join(agents, "|") != strings.Join(want, "|") {
		t.Errorf("after a reload the list says %q, want %q", agents, want)
	}
}
