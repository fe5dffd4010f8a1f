package mockagent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Every prompt an agent process receives is appended to received.jsonl in
// the state dir, in the same critical section that records it in the
// session's history. It is the ground truth of what reached the "provider"
// across every process a retry or a restart starts: the fault suite
// (test/chaos) uses it to prove that no user turn was sent twice.

const receivedFile = "received.jsonl"

// Received is one session/prompt as an agent process saw it.
type Received struct {
	At      time.Time `json:"at"`
	PID     int       `json:"pid"`
	Task    string    `json:"task"`    // ORCHESTRATORD_TASK_ID
	Session string    `json:"session"` // the agent session
	Text    string    `json:"text"`
}

// ReceivedPrompts returns every prompt logged in stateDir, oldest first. A
// torn last line (an agent killed mid-write) is skipped.
func ReceivedPrompts(stateDir string) ([]Received, error) {
	return readLog[Received](stateDir, receivedFile)
}

// appendReceivedLocked logs one prompt; the caller holds the state dir's lock.
func (s *store) appendReceivedLocked(r Received) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, receivedFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// recordPrompt applies fn to the session's history and logs the prompt as
// received, under one lock: a prompt is in both or (on a failed write) in
// neither, except for a process killed between the two writes.
func (s *store) recordPrompt(r Received, fn func(*sessionFile)) error {
	return s.locked(func() error {
		f, err := s.readSession(r.Session)
		if err != nil {
			return err
		}
		fn(&f)
		if err := s.writeSession(f); err != nil {
			return err
		}
		return s.appendReceivedLocked(r)
	})
}
