package mockagent

import (
	"os"
	"path/filepath"
	"testing"
)

// A log whose last line an agent tore as it was killed still reads: the
// whole lines come back, the torn one is skipped, for each log.
func TestLogsSkipATornLastLine(t *testing.T) {
	dir := t.TempDir()
	if _, err := openStore(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{receivedFile, wallLogFile} {
		body := `{"text":"one","prompt":"one"}` + "\n" + `{"text":"tw`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReceivedPrompts(dir)
	if err != nil || len(got) != 1 || got[0].Text != "one" {
		t.Errorf("ReceivedPrompts = %+v, %v; want the one whole line", got, err)
	}
	walls, err := WallRequests(dir)
	if err != nil || len(walls) != 1 {
		t.Errorf("WallRequests = %+v, %v; want the one whole line", walls, err)
	}
}
