package notify

import (
	"time"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// Kind is what happened.
type Kind string

// Kinds, as they appear in the body's "event" field and in a webhook's
// events list.
const (
	NeedsYou Kind = "needs_you" // a recovery banner: a person must act
	Finished Kind = "finished"  // a turn ended and the task is idle
	Waiting  Kind = "waiting"   // parked until a usage window resets, or a long retry hint
)

// Kinds lists every Kind, the default of a webhook's events.
var Kinds = []Kind{NeedsYou, Finished, Waiting}

func (k Kind) valid() bool {
	for _, x := range Kinds {
		if k == x {
			return true
		}
	}
	return false
}

// Event is one notification. Its JSON is the default body of a webhook.
type Event struct {
	Kind Kind `json:"event"`
	// Key identifies the moment (a banner, a notice, a turn): an Event
	// whose Key was sent recently is not sent again. Not in the body.
	Key       string `json:"-"`
	TaskID    string `json:"task_id"`
	SessionID string `json:"session_id"`
	Title     string `json:"title"`
	Agent     string `json:"agent,omitempty"`
	Text      string `json:"text"`
	// Reason: the banner's reason, the failure code of a wait, the stop
	// reason of a finished turn.
	Reason string `json:"reason,omitempty"`
	// UsageWindow: a Waiting event for a usage window (rather than a long
	// retry hint).
	UsageWindow bool       `json:"usage_window,omitempty"`
	RetryAt     *time.Time `json:"retry_at,omitempty"`
	At          time.Time  `json:"at"`
	// URL opens the task in the UI (Config.BaseURL), without the access token.
	URL string `json:"url,omitempty"`
	// Summary is one line for a chat message: "Needs you: fix the bug — …".
	Summary string `json:"summary"`
}

// sanitized returns e with every free-text field passed through
// routingerr.Sanitize, and its Summary filled in.
func (e Event) sanitized() Event {
	e.Title = routingerr.Sanitize(e.Title)
	e.Agent = routingerr.Sanitize(e.Agent)
	e.Text = routingerr.Sanitize(e.Text)
	e.Reason = routingerr.Sanitize(e.Reason)
	e.Summary = routingerr.Sanitize(e.summary())
	return e
}

func (e Event) summary() string {
	title := e.Title
	if title == "" {
		title = "task " + e.TaskID
	}
	label := map[Kind]string{NeedsYou: "Needs you", Finished: "Finished", Waiting: "Waiting"}[e.Kind]
	s := label + ": " + title
	if e.Text != "" {
		s += " — " + e.Text
	}
	return s
}
