package mockagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
)

// Every retry starts a new agent process, so everything that must survive
// one (session history, failure counters) lives in files under StateDir.
// Writes are atomic (temp file + rename) and read-modify-write cycles hold
// an flock, because two agent processes may share the directory.

const (
	roleUser  = "user"
	roleAgent = "agent"
)

type message struct {
	ID       string `json:"id"`
	Role     string `json:"role"` // user | agent
	Text     string `json:"text"`
	Scenario string `json:"scenario,omitempty"` // user prompts: the scenario token in effect
}

type sessionFile struct {
	ID       string    `json:"id"`
	Cwd      string    `json:"cwd"`
	Messages []message `json:"messages"`
	Model    string    `json:"model,omitempty"` // "" = DefaultModel (models.go)
}

type store struct {
	dir string
}

var errNoSession = errors.New("session not found")

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func openStore(dir string) (*store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		return nil, fmt.Errorf("mockagent: state dir: %w", err)
	}
	return &store{dir: dir}, nil
}

// locked runs fn while holding an exclusive flock on the state dir.
func (s *store) locked(fn func() error) error {
	f, err := os.OpenFile(filepath.Join(s.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }()
	return fn()
}

func (s *store) sessionPath(id string) (string, error) {
	if !sessionIDPattern.MatchString(id) {
		return "", fmt.Errorf("invalid session id %q", id)
	}
	return filepath.Join(s.dir, "sessions", id+".json"), nil
}

func (s *store) createSession(f sessionFile) error {
	return s.locked(func() error { return s.writeSession(f) })
}

func (s *store) loadSession(id string) (sessionFile, error) {
	var f sessionFile
	err := s.locked(func() (err error) {
		f, err = s.readSession(id)
		return err
	})
	return f, err
}

// updateSession applies fn to the stored session and writes it back.
func (s *store) updateSession(id string, fn func(*sessionFile)) error {
	return s.locked(func() error {
		f, err := s.readSession(id)
		if err != nil {
			return err
		}
		fn(&f)
		return s.writeSession(f)
	})
}

func (s *store) readSession(id string) (sessionFile, error) {
	var f sessionFile
	p, err := s.sessionPath(id)
	if err != nil {
		return f, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return f, errNoSession
	}
	if err != nil {
		return f, err
	}
	return f, json.Unmarshal(b, &f)
}

func (s *store) writeSession(f sessionFile) error {
	p, err := s.sessionPath(f.ID)
	if err != nil {
		return err
	}
	return writeJSONAtomic(p, f)
}

// countFailure decides whether the next prompt of key fails: the first n do.
// It returns the number of failures so far, including this one.
func (s *store) countFailure(key string, n int) (fail bool, count int, err error) {
	err = s.locked(func() error {
		p := filepath.Join(s.dir, "counters.json")
		counters := map[string]int{}
		b, err := os.ReadFile(p)
		switch {
		case err == nil:
			if err := json.Unmarshal(b, &counters); err != nil {
				return fmt.Errorf("counters.json: %w", err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		count = counters[key]
		if count >= n {
			return nil
		}
		fail = true
		count++
		counters[key] = count
		return writeJSONAtomic(p, counters)
	})
	return fail, count, err
}

func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// UserPrompts returns the user prompts the mock holds in the history of an
// agent session, oldest first: what a real agent would see as its
// conversation. Tests use it to prove a retry never duplicated a user turn.
func UserPrompts(stateDir, agentSessionID string) ([]string, error) {
	st, err := openStore(stateDir)
	if err != nil {
		return nil, err
	}
	f, err := st.loadSession(agentSessionID)
	if err != nil {
		return nil, fmt.Errorf("mockagent: session %q: %w", agentSessionID, err)
	}
	prompts := []string{}
	for _, m := range f.Messages {
		if m.Role == roleUser {
			prompts = append(prompts, m.Text)
		}
	}
	return prompts, nil
}
