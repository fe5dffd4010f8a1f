package routingerr

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// corpusLine is one labelled real-world failure (DESIGN §3).
type corpusLine struct {
	ID         string `json:"id"`
	Text       string `json:"text"`
	HTTPStatus *int   `json:"http_status"`
	Provider   string `json:"provider"`
	Expect     struct {
		Class        Class   `json:"class"`
		Accept       []Class `json:"accept"`
		Family       string  `json:"family"`
		RetryAfterMS *int64  `json:"retry_after_ms"`
		ResetAt      *string `json:"reset_at"`
		ResumeSafe   *bool   `json:"resume_safe"`
	} `json:"expect"`
	Source string `json:"source"`
}

// corpusFiles is the repo's copy plus every *.jsonl in shared/corpus beside
// the repository, when that folder exists (new lines land there first).
func corpusFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("testdata", "provider-errors.jsonl")}
	root, err := repoRoot()
	if err != nil {
		t.Logf("shared corpus skipped: %v", err)
		return files
	}
	shared, _ := filepath.Glob(filepath.Join(root, "..", "shared", "corpus", "*.jsonl"))
	return append(files, shared...)
}

// repoRoot walks up from the package directory to the folder with go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

func loadCorpus(t *testing.T) []corpusLine {
	t.Helper()
	var lines []corpusLine
	seen := map[string]string{} // id → text, to skip the shared twin of the copy
	for _, path := range corpusFiles(t) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("open corpus: %v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for n := 1; sc.Scan(); n++ {
			if len(sc.Bytes()) == 0 {
				continue
			}
			var l corpusLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			if text, dup := seen[l.ID]; dup && text == l.Text {
				continue
			}
			seen[l.ID] = l.Text
			lines = append(lines, l)
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		f.Close()
	}
	return lines
}

var corpusNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func corpusEvidence(l corpusLine) Evidence {
	ev := Evidence{Err: l.Text}
	if l.HTTPStatus != nil {
		ev.HTTPStatus = *l.HTTPStatus
	}
	return ev
}

func TestCorpus(t *testing.T) {
	t.Parallel()
	lines := loadCorpus(t)
	if len(lines) < 96 {
		t.Fatalf("corpus has %d lines, want at least 96", len(lines))
	}
	pass := 0
	for _, l := range lines {
		c := Classify(corpusEvidence(l), corpusNow)
		if msg := checkCorpus(l, c); msg != "" {
			t.Errorf("%s: %s\n  got  code=%s class=%s rule=%s\n  text %.200q", l.ID, msg, c.Code, c.Class, c.RuleID, l.Text)
			continue
		}
		pass++
	}
	t.Logf("corpus: %d/%d lines pass", pass, len(lines))
}

func checkCorpus(l corpusLine, c Classification) string {
	e := l.Expect
	if c.Class != e.Class && !slices.Contains(e.Accept, c.Class) {
		return "class " + string(c.Class) + ", want " + string(e.Class)
	}
	if c.Class == e.Class && c.Code != e.Family {
		return "code " + c.Code + ", want " + e.Family
	}
	if e.RetryAfterMS != nil {
		if c.RetryAfter == nil || c.RetryAfter.Milliseconds() != *e.RetryAfterMS {
			return "retry_after wrong"
		}
	}
	if e.ResetAt != nil {
		want, err := time.Parse(time.RFC3339, *e.ResetAt)
		if err != nil {
			return "bad reset_at in corpus: " + err.Error()
		}
		if c.ResetAt == nil || !c.ResetAt.Equal(want) {
			return "reset_at wrong"
		}
	}
	if e.ResumeSafe != nil && c.ResumeSafe != *e.ResumeSafe {
		return "resume_safe wrong"
	}
	return ""
}
