package mockagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The /wall scenario is a provider shared by every session: its prompts
// fail with a 529 while the wall is up and succeed otherwise. The wall is a
// file in the state dir, so a test (or the overload benchmark) raises and
// lowers it for every agent process at once, and every /wall prompt is
// logged there, so the caller can count what reached the "provider".

const (
	wallFile    = "wall.json"
	wallLogFile = "wall.log"
)

// Wall is the shared provider state: up while Up and, when Until is set,
// before Until. With Hang, a prompt that meets the wall never gets an
// answer (a provider that holds the connection) until it is cancelled.
type Wall struct {
	Up    bool      `json:"up"`
	Until time.Time `json:"until,omitzero"`
	Hang  bool      `json:"hang,omitempty"`
	// Models, when set, are the only models the wall stands for (Config.Model):
	// a provider overloaded for one model and answering for another.
	Models []string `json:"models,omitempty"`
	// FailAfter holds a prompt that meets the wall this long before it
	// fails (a slow error): a test can move its clock while it is in flight.
	FailAfter time.Duration `json:"fail_after,omitempty"`
}

func (w Wall) upAt(now time.Time, model string) bool {
	return w.Up && (w.Until.IsZero() || now.Before(w.Until)) && (len(w.Models) == 0 || slices.Contains(w.Models, model))
}

// WallRequest is one /wall prompt as the provider saw it.
type WallRequest struct {
	At      time.Time `json:"at"`
	Task    string    `json:"task"`    // ORCHESTRATORD_TASK_ID
	Session string    `json:"session"` // the agent session
	Prompt  string    `json:"prompt"`
	Model   string    `json:"model,omitempty"` // Config.Model of the agent it reached
	Failed  bool      `json:"failed"`
}

// SetWall raises or lowers the wall for every mock agent using stateDir.
func SetWall(stateDir string, w Wall) error {
	st, err := openStore(stateDir)
	if err != nil {
		return err
	}
	return st.locked(func() error { return writeJSONAtomic(filepath.Join(stateDir, wallFile), w) })
}

// WallRequests returns every /wall prompt logged in stateDir, oldest first
// (a torn line of a killed agent skipped).
func WallRequests(stateDir string) ([]WallRequest, error) {
	return readLog[WallRequest](stateDir, wallLogFile)
}

// hitWall reads the wall and logs the request, under the state dir's lock.
func (s *store) hitWall(task, session, prompt, model string, now time.Time) (up, hang bool, failAfter time.Duration, err error) {
	err = s.locked(func() error {
		var w Wall
		b, err := os.ReadFile(filepath.Join(s.dir, wallFile))
		switch {
		case err == nil:
			if err := json.Unmarshal(b, &w); err != nil {
				return fmt.Errorf("%s: %w", wallFile, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		up = w.upAt(now, model)
		hang = up && w.Hang
		if up {
			failAfter = w.FailAfter
		}
		line, err := json.Marshal(WallRequest{At: now.UTC(), Task: task, Session: session, Prompt: prompt, Model: model, Failed: up})
		if err != nil {
			return err
		}
		f, err := os.OpenFile(filepath.Join(s.dir, wallLogFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	return up, hang, failAfter, err
}
