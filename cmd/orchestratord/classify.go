package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	_ "time/tzdata" // "resets 3pm (Europe/Paris)" must resolve on hosts without zoneinfo
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// maxClassifyLine bounds one input line; longer lines are reported as bad.
const maxClassifyLine = 1 << 20

func newClassifyCmd() *cobra.Command {
	var (
		explain, asJSON bool
		nowFlag         string
	)
	cmd := &cobra.Command{
		Use:   "classify",
		Short: "Classify agent and provider errors read from stdin, one per line",
		Long: `Reads one error per line on stdin: plain text, or a JSON object
{"text": "...", "http_status": 529} (corpus and catalogue lines work as they
are; a catalogue line's "evidence" — rpc_code, rpc_message, rpc_data,
exit_status, stderr, phase — is read too). Writes one JSON object per line:
{"code","class","confidence","rule_id","retry_after_ms","reset_at","resume_safe","excerpt"}.

--explain prints, for people, a few lines per error instead: the class, the
rule that decided and the span of text it matched, and why the rules tried
before it did not apply. --explain --json adds that as "explain" to each
JSON object, for machines.

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
			mode := classifyJSON
			switch {
			case explain && asJSON:
				mode = classifyExplainJSON
			case explain:
				mode = classifyExplainText
			}
			bad, err := runClassify(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), mode, now)
			if err != nil {
				return err
			}
			if bad > 0 {
				return exitCodeError(2)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, "say which rule decided, on which text, and why the rules before it did not apply")
	cmd.Flags().BoolVar(&asJSON, "json", false, `with --explain: JSON objects with an "explain" field instead of text`)
	cmd.Flags().StringVar(&nowFlag, "now", "", "resolve clock-time resets (\"resets 3pm (Europe/Paris)\") against this RFC 3339 time, e.g. when back-filling")
	return cmd
}

// classifyOutput is one line of output; the field order is the contract.
type classifyOutput struct {
	Code         string                  `json:"code"`
	Class        routingerr.Class        `json:"class"`
	Confidence   float64                 `json:"confidence"`
	RuleID       string                  `json:"rule_id"`
	RetryAfterMS *int64                  `json:"retry_after_ms"`
	ResetAt      *string                 `json:"reset_at"`
	ResumeSafe   bool                    `json:"resume_safe"`
	Excerpt      string                  `json:"excerpt"`
	Explain      *routingerr.Explanation `json:"explain,omitempty"`
}

// classifyMode is the output of runClassify.
type classifyMode int

const (
	classifyJSON        classifyMode = iota // one classification object per line
	classifyExplainJSON                     // the same with "explain"
	classifyExplainText                     // a few readable lines per error
)

// classifyInput is a JSON input line.
type classifyInput struct {
	Text       *string `json:"text"`
	HTTPStatus *int    `json:"http_status"`
	Evidence   *struct {
		RPCCode    *int             `json:"rpc_code"`
		RPCMessage string           `json:"rpc_message"`
		RPCData    string           `json:"rpc_data"`
		Phase      routingerr.Phase `json:"phase"`
		ExitStatus string           `json:"exit_status"`
		Stderr     string           `json:"stderr"`
		Err        string           `json:"err"`
		Cancelled  bool             `json:"cancelled"`
	} `json:"evidence"`
}

// runClassify classifies every line of in. Bad lines are reported on errOut
// as "line N: …" and counted; err is only for reading in or writing out.
func runClassify(in io.Reader, out, errOut io.Writer, mode classifyMode, now time.Time) (badLines int, err error) {
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
		case !skip && mode == classifyExplainText:
			c, x := routingerr.Explain(ev, now)
			if _, err := io.WriteString(w, explainText(n, c, x)); err != nil {
				return badLines, err
			}
		case !skip:
			if err := enc.Encode(classifyLine(ev, mode == classifyExplainJSON, now)); err != nil {
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
	if e := in.Evidence; e != nil {
		ev = routingerr.Evidence{Phase: e.Phase, ExitStatus: e.ExitStatus, StderrTail: e.Stderr, Err: e.Err,
			RPCMessage: e.RPCMessage, RPCData: e.RPCData, Cancelled: e.Cancelled}
		if e.RPCCode != nil {
			ev.HasRPCError, ev.RPCCode = true, *e.RPCCode
		}
	}
	if in.HTTPStatus != nil {
		if *in.HTTPStatus < 0 || *in.HTTPStatus > 999 {
			return ev, false, fmt.Errorf("http_status %d out of range", *in.HTTPStatus)
		}
		ev.HTTPStatus = *in.HTTPStatus
	}
	return ev, false, nil
}

func classifyLine(ev routingerr.Evidence, explain bool, now time.Time) classifyOutput {
	var c routingerr.Classification
	var x *routingerr.Explanation
	if explain {
		cx, ex := routingerr.Explain(ev, now)
		c, x = cx, &ex
	} else {
		c = routingerr.Classify(ev, now)
	}
	o := classifyOutput{
		Code: c.Code, Class: c.Class, Confidence: c.Confidence, RuleID: c.RuleID,
		ResumeSafe: c.ResumeSafe, Excerpt: c.Excerpt, Explain: x,
	}
	if c.RetryAfter != nil {
		o.RetryAfterMS = new(c.RetryAfter.Milliseconds())
	}
	if c.ResetAt != nil {
		o.ResetAt = new(c.ResetAt.UTC().Format(time.RFC3339))
	}
	return o
}

// explainText is --explain's few lines for one error:
//
//	line 1: transient (overloaded), rule anthropic.overloaded_error.v1 [provider transient]
//	  matched "overloaded_error" in the text, at 34–50: …"type":"overloaded_error","message…
//	  retry after 27s · resume safe: no
//	  not claude_code.retrying.v1: found "retrying in ", but the retries were over (…)
//	  212 earlier rules found none of their words
func explainText(n int, c routingerr.Classification, x routingerr.Explanation) string {
	var b strings.Builder
	head := string(c.Class)
	if c.Code != string(c.Class) {
		head += " (" + c.Code + ")"
	}
	fmt.Fprintf(&b, "line %d: %s, rule %s [%s]\n", n, head, c.RuleID, x.Band)
	if x.Span != nil {
		fmt.Fprintf(&b, "  matched %s, at %d–%d: %s\n", x.Why, x.Span[0], x.Span[1], spanContext(x))
	} else {
		fmt.Fprintf(&b, "  %s\n", x.Why)
	}
	var hints []string
	if c.RetryAfter != nil {
		hints = append(hints, "retry after "+c.RetryAfter.String())
	}
	if c.ResetAt != nil {
		hints = append(hints, "resets "+c.ResetAt.UTC().Format(time.RFC3339))
	}
	if c.Class == routingerr.ClassTransient {
		safe := "no"
		if c.ResumeSafe {
			safe = "yes"
		}
		hints = append(hints, "resume safe: "+safe)
	}
	if len(hints) > 0 {
		fmt.Fprintf(&b, "  %s\n", strings.Join(hints, " · "))
	}
	for _, m := range x.NearMisses {
		fmt.Fprintf(&b, "  not %s: %s\n", m.RuleID, m.Reason)
	}
	if x.Silent > 0 {
		what := "earlier rules"
		if c.RuleID == "unclassified.v1" {
			what = "rules"
		}
		fmt.Fprintf(&b, "  %d %s found none of their words\n", x.Silent, what)
	}
	return b.String()
}

// spanContext shows the match inside up to 30 bytes either side, sanitised,
// on one line.
func spanContext(x routingerr.Explanation) string {
	s, e := x.Span[0], x.Span[1]
	from, to := max(0, s-30), min(len(x.Text), e+30)
	for from > 0 && !utf8.RuneStart(x.Text[from]) {
		from--
	}
	for to < len(x.Text) && !utf8.RuneStart(x.Text[to]) {
		to++
	}
	out := routingerr.Sanitize(x.Text[from:s]) + "»" + x.Matched + "«" + routingerr.Sanitize(x.Text[e:to])
	out = strings.Join(strings.Fields(out), " ")
	if from > 0 {
		out = "…" + out
	}
	if to < len(x.Text) {
		out += "…"
	}
	return out
}
