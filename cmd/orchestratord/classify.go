package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	_ "time/tzdata" // "resets 3pm (Europe/Paris)" must resolve on hosts without zoneinfo

	"github.com/spf13/cobra"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// maxClassifyLine bounds one input line; longer lines are reported as bad.
const maxClassifyLine = 1 << 20

func newClassifyCmd() *cobra.Command {
	var (
		explain bool
		nowFlag string
	)
	cmd := &cobra.Command{
		Use:   "classify",
		Short: "Classify agent and provider errors read from stdin, one per line",
		Long: `Reads one error per line on stdin: plain text, or a JSON object
{"text": "...", "http_status": 529} (corpus lines work as they are). Writes
one JSON object per line:
{"code","class","confidence","rule_id","retry_after_ms","reset_at","resume_safe","excerpt"}.
Empty lines are skipped. Exits 2 when a line could not be read (reported on
stderr with its number); the other lines are still classified.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			if nowFlag != "" {
				t, err := time.Parse(time.RFC3339, nowFlag)
				if err != nil {
					return fmt.Errorf("--now: %w", err)
				}
				now = t
			}
			bad, err := runClassify(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), explain, now)
			if err != nil {
				return err
			}
			if bad > 0 {
				return exitCodeError(2)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, `add "rules": every rule tried, in order, and whether it matched`)
	cmd.Flags().StringVar(&nowFlag, "now", "", "resolve clock-time resets (\"resets 3pm (Europe/Paris)\") against this RFC 3339 time, e.g. when back-filling")
	return cmd
}

// classifyOutput is one line of output; the field order is the contract.
type classifyOutput struct {
	Code         string                 `json:"code"`
	Class        routingerr.Class       `json:"class"`
	Confidence   float64                `json:"confidence"`
	RuleID       string                 `json:"rule_id"`
	RetryAfterMS *int64                 `json:"retry_after_ms"`
	ResetAt      *string                `json:"reset_at"`
	ResumeSafe   bool                   `json:"resume_safe"`
	Excerpt      string                 `json:"excerpt"`
	Rules        []routingerr.RuleTrace `json:"rules,omitempty"`
}

// classifyInput is a JSON input line.
type classifyInput struct {
	Text       *string `json:"text"`
	HTTPStatus *int    `json:"http_status"`
}

// runClassify classifies every line of in. Bad lines are reported on errOut
// as "line N: …" and counted; err is only for reading in or writing out.
func runClassify(in io.Reader, out, errOut io.Writer, explain bool, now time.Time) (badLines int, err error) {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var buf []byte
	for n := 1; ; n++ {
		line, tooLong, rerr := readLine(r, buf[:0])
		buf = line
		if rerr != nil && rerr != io.EOF {
			return badLines, errors.Join(fmt.Errorf("read line %d: %w", n, rerr), w.Flush())
		}
		if rerr == io.EOF && len(line) == 0 && !tooLong {
			break
		}
		ev, skip, perr := parseClassifyLine(line, tooLong)
		switch {
		case perr != nil:
			badLines++
			if _, err := fmt.Fprintf(errOut, "line %d: %v\n", n, perr); err != nil {
				return badLines, errors.Join(err, w.Flush())
			}
		case !skip:
			if err := enc.Encode(classifyLine(ev, explain, now)); err != nil {
				return badLines, err
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	return badLines, w.Flush()
}

// readLine reads one line without its newline into buf; a line longer than
// maxClassifyLine is consumed and reported as tooLong.
func readLine(r *bufio.Reader, buf []byte) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) <= maxClassifyLine+1 {
			buf = append(buf, chunk...)
		} else {
			tooLong, buf = true, buf[:0]
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}

func parseClassifyLine(line []byte, tooLong bool) (ev routingerr.Evidence, skip bool, err error) {
	if tooLong {
		return ev, false, fmt.Errorf("longer than %d bytes", maxClassifyLine)
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return ev, true, nil
	}
	if trimmed[0] != '{' {
		return routingerr.Evidence{Err: string(line)}, false, nil
	}
	var in classifyInput
	if err := json.Unmarshal(trimmed, &in); err != nil {
		return ev, false, fmt.Errorf("invalid JSON: %w", err)
	}
	if in.Text == nil {
		return ev, false, errors.New(`JSON object without a "text" string`)
	}
	ev.Err = *in.Text
	if in.HTTPStatus != nil {
		if *in.HTTPStatus < 0 || *in.HTTPStatus > 999 {
			return ev, false, fmt.Errorf("http_status %d out of range", *in.HTTPStatus)
		}
		ev.HTTPStatus = *in.HTTPStatus
	}
	return ev, false, nil
}

func classifyLine(ev routingerr.Evidence, explain bool, now time.Time) classifyOutput {
	var (
		c     routingerr.Classification
		trace []routingerr.RuleTrace
	)
	if explain {
		c, trace = routingerr.ClassifyExplain(ev, now)
	} else {
		c = routingerr.Classify(ev, now)
	}
	o := classifyOutput{
		Code: c.Code, Class: c.Class, Confidence: c.Confidence, RuleID: c.RuleID,
		ResumeSafe: c.ResumeSafe, Excerpt: c.Excerpt, Rules: trace,
	}
	if c.RetryAfter != nil {
		o.RetryAfterMS = new(c.RetryAfter.Milliseconds())
	}
	if c.ResetAt != nil {
		o.ResetAt = new(c.ResetAt.UTC().Format(time.RFC3339))
	}
	return o
}
