package mockagent

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// The /leak scenario is a provider error that carries secrets, as real ones
// do (a key echoed back, a URL with a password, a request dump): it streams
// the error line as reply text, writes it to stderr, and fails with it as a
// 529, so the daemon retries and has every chance to persist or show it.
// The secrets are the lines of leak.txt in the state dir (SetLeak), else
// FakeSecrets; the daemon's own ORCHESTRATORD_TOKEN is added when the agent
// inherited it. The fault suite (test/chaos) plants its own and then looks
// for them in the database, the event log and the daemon's logs.

const leakFile = "leak.txt"

// FakeSecrets are dummy credentials in the shapes redactors must know.
var FakeSecrets = []string{
	"AKIAQ7CHAOSFAKEKEY42",
	"aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYchaosFAKEKEY",
	"ghp_chaosFAKE0123456789abcdefghijABCDEF",
	"xoxb-123456789012-1234567890123-chaosFAKEslackTOKEN1",
	"sk_live_chaosFAKE0123456789abcdef",
	"https://deploy:chaos-pw-hunter2@git.example.com/repo.git",
	"token=chaosFAKEtoken0123456789",
}

// SetLeak sets the secrets every /leak prompt in stateDir emits.
func SetLeak(stateDir string, secrets []string) error {
	st, err := openStore(stateDir)
	if err != nil {
		return err
	}
	return st.locked(func() error {
		return os.WriteFile(filepath.Join(stateDir, leakFile), []byte(strings.Join(secrets, "\n")+"\n"), 0o600)
	})
}

// leakSecrets reads the planted secrets (FakeSecrets when none are).
func (s *store) leakSecrets() []string {
	var out []string
	_ = s.locked(func() error {
		f, err := os.Open(filepath.Join(s.dir, leakFile))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				out = append(out, line)
			}
		}
		return sc.Err()
	})
	if len(out) == 0 {
		out = append(out, FakeSecrets...)
	}
	if tok := os.Getenv("ORCHESTRATORD_TOKEN"); tok != "" {
		out = append(out, "ORCHESTRATORD_TOKEN="+tok)
	}
	return out
}

// leakLine is the 529 line with the secrets in it.
func leakLine(secrets []string) string {
	return echoedOverload + " Request dump: " + strings.Join(secrets, " ")
}

func leakError(line string, secrets []string) *acp.RequestError {
	return &acp.RequestError{Code: -32603, Message: "Internal error: " + line, Data: map[string]any{
		"errorKind": "server_error", "details": line,
		"request": map[string]any{"headers": map[string]any{"authorization": "Bearer " + secrets[len(secrets)-1]}},
	}}
}
