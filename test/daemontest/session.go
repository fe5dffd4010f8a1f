package daemontest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Event is one session notification as a client sees it.
type Event struct {
	Action  string          `json:"action"`
	Seq     int64           `json:"seq"`
	Payload json.RawMessage `json:"payload"`
	At      time.Time       `json:"-"` // when this client received it; zero for replayed events
}

// Message is a chat message as the protocol carries it.
type Message struct {
	ID        string         `json:"id"`
	Role      string         `json:"role"`
	Variant   string         `json:"variant"`
	Text      string         `json:"text"`
	Metadata  map[string]any `json:"metadata"`
	UpdatedAt time.Time      `json:"updated_at"`
	Actions   []struct {
		Action  string         `json:"action"`
		Payload map[string]any `json:"payload"`
	} `json:"actions"`
}

// EventBody is the union of the session event payload fields tests read.
type EventBody struct {
	State      string   `json:"state"`
	StopReason string   `json:"stop_reason"`
	MessageID  string   `json:"message_id"`
	Delta      string   `json:"delta"`
	Retry      int      `json:"retry"`
	Replay     bool     `json:"replay"`
	Message    *Message `json:"message"`
}

// Body decodes the payload.
func (e Event) Body() EventBody {
	var b EventBody
	_ = json.Unmarshal(e.Payload, &b)
	return b
}

// SubscribeResult is the response to session.subscribe.
type SubscribeResult struct {
	Mode     string    `json:"mode"`
	Messages []Message `json:"messages"`
	Events   []Event   `json:"events"`
	LastSeq  int64     `json:"last_seq"`
	// NextCursor is set when Messages is only the first page of the
	// snapshot (session.page sends the rest).
	NextCursor string `json:"next_cursor"`
	Session    struct {
		State          string `json:"state"`
		AgentSessionID string `json:"agent_session_id"`
	} `json:"session"`
}

// Session follows one session over a client: replayed events, then live ones.
type Session struct {
	ID, TaskID string
	Seen       []Event // every event returned so far, in order

	t       testing.TB
	c       *Client
	pending []Event
}

// CreateTask sends task.create and follows the new session from seq 0.
func CreateTask(t testing.TB, c *Client, payload map[string]any) *Session {
	t.Helper()
	var created struct {
		Task struct {
			ID       string `json:"id"`
			Sessions []struct {
				ID string `json:"id"`
			} `json:"sessions"`
		} `json:"task"`
	}
	if err := json.Unmarshal(c.Call("task.create", payload), &created); err != nil || len(created.Task.Sessions) != 1 {
		t.Fatalf("task.create answered %+v (%v)", created, err)
	}
	return Follow(t, c, created.Task.ID, created.Task.Sessions[0].ID, 0)
}

// Follow subscribes to a session and replays its events after seq after.
func Follow(t testing.TB, c *Client, taskID, sessionID string, after int64) *Session {
	t.Helper()
	var res SubscribeResult
	if err := json.Unmarshal(c.Call("session.subscribe", map[string]any{"session_id": sessionID, "after_seq": after}), &res); err != nil {
		t.Fatal(err)
	}
	return &Session{t: t, c: c, ID: sessionID, TaskID: taskID, pending: res.Events}
}

// Snapshot asks for the session's current messages.
func (s *Session) Snapshot() SubscribeResult {
	s.t.Helper()
	var snap SubscribeResult
	if err := json.Unmarshal(s.c.Call("session.subscribe", map[string]any{"session_id": s.ID}), &snap); err != nil {
		s.t.Fatal(err)
	}
	return snap
}

// Next returns the next event of this session, in order.
func (s *Session) Next(timeout time.Duration) Event {
	s.t.Helper()
	if len(s.pending) > 0 {
		e := s.pending[0]
		s.pending = s.pending[1:]
		s.Seen = append(s.Seen, e)
		return e
	}
	for {
		n := s.c.WaitNote(timeout, func(e Envelope) bool { return strings.HasPrefix(e.Action, "session.") })
		var ids struct {
			SessionID string `json:"session_id"`
			Seq       int64  `json:"seq"`
		}
		if err := json.Unmarshal(n.Payload, &ids); err != nil {
			s.t.Fatal(err)
		}
		if ids.SessionID != s.ID {
			continue
		}
		e := Event{Action: n.Action, Seq: ids.Seq, Payload: n.Payload, At: time.Now()}
		s.Seen = append(s.Seen, e)
		return e
	}
}

// Until reads events until match.
func (s *Session) Until(timeout time.Duration, match func(Event) bool) Event {
	s.t.Helper()
	for {
		if e := s.Next(timeout); match(e) {
			return e
		}
	}
}

// TurnDone matches the end of any attempt.
func TurnDone(e Event) bool { return e.Action == "session.turn.completed" }

// TurnEnded matches the end of a turn that is not a parked retry.
func TurnEnded(e Event) bool { return TurnDone(e) && e.Body().StopReason != "retry_scheduled" }

// IsNotice matches the retry notice being added or updated.
func IsNotice(e Event) bool {
	m := e.Body().Message
	return m != nil && m.Metadata["kind"] == "retry_notice"
}

// IsBanner matches the recovery banner being added.
func IsBanner(e Event) bool {
	m := e.Body().Message
	return e.Action == "session.message.added" && m != nil && m.Metadata["kind"] == "recovery"
}

// IsState matches a session state change to state.
func IsState(state string) func(Event) bool {
	return func(e Event) bool { return e.Action == "session.state_changed" && e.Body().State == state }
}
