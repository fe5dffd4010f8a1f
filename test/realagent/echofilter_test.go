package realagent

// The echo filter simulates a daemon that does not count the agent's echo of
// a provider error as assistant output. claude-agent-acp reports a failed
// model call twice: first as an agent_message_chunk carrying Claude Code's
// synthetic error text ("API Error: 529 Overloaded. …"), then as the
// JSON-RPC error of session/prompt. orchestratord counts the first as output
// and refuses to replay (replay_unsafe). Running the agent behind this
// filter shows what the rest of the retry owner does with a real agent once
// that is fixed. It is a test device only: the test binary re-executes
// itself as a stdio proxy in front of the agent and drops exactly those
// chunks.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// filterEnv, set in the proxy's environment, names the agent it fronts.
const filterEnv = "ORCHESTRATORD_REALAGENT_ECHO_FILTER_TARGET"

// runEchoFilter runs the agent named by filterEnv with our stdin and stderr,
// copying its stdout line by line except the error echoes. It returns the
// agent's exit code.
func runEchoFilter(target string) int {
	cmd := exec.Command(target, os.Args[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo filter:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "echo filter:", err)
		return 1
	}
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && !isErrorEcho(line) {
			if _, werr := os.Stdout.Write(line); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// isErrorEcho: a session/update agent_message_chunk whose whole text is one
// of Claude Code's synthetic error messages.
func isErrorEcho(line []byte) bool {
	var n struct {
		Method string `json:"method"`
		Params struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil || n.Method != "session/update" || n.Params.Update.SessionUpdate != "agent_message_chunk" {
		return false
	}
	text := n.Params.Update.Content.Text
	if strings.HasPrefix(text, "API Error") || strings.HasPrefix(text, "Invalid API key") {
		fmt.Fprintf(os.Stderr, "echo filter: dropped agent_message_chunk %q\n", text)
		return true
	}
	return false
}
