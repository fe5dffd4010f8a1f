package routingerr

import (
	"bytes"
	mbits "math/bits"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Input bounds. The final error of a run sits at the end of stderr, and at
// the start (or, for pasted logs, the end) of a message, so the classifier
// reads the tail of stderr and the head and tail of the others; this keeps a
// 64 KiB stderr cheap and the work linear.
const (
	maxFieldBytes  = 8 << 10
	maxStderrBytes = 8 << 10
	// ExcerptMax caps Classification.Excerpt (in bytes, before sanitising).
	ExcerptMax = 500
)

// RuleTrace is one rule tried by ClassifyExplain, in evaluation order.
type RuleTrace struct {
	RuleID  string `json:"rule_id"`
	Matched bool   `json:"matched"`
}

// ruleUnclassified is the rule id reported when no rule matched.
const ruleUnclassified = "unclassified.v1"

// Classify returns the classification of ev. It is pure: now is only used to
// resolve clock-time resets such as "resets 3pm (Europe/Paris)".
func Classify(ev Evidence, now time.Time) Classification {
	return classify(&ev, now, nil)
}

// ClassifyExplain is Classify plus the rules tried, in order, ending with the
// one that matched (if any).
func ClassifyExplain(ev Evidence, now time.Time) (Classification, []RuleTrace) {
	trace := make([]RuleTrace, 0, len(ruleTable))
	c := classify(&ev, now, &trace)
	return c, trace
}

// ExcerptOf returns the sanitised, capped text of ev that says the most about
// its failure: the text around the matching rule, or the message / end of
// stderr when nothing matched.
func ExcerptOf(ev Evidence) string {
	return classify(&ev, time.Time{}, nil).Excerpt
}

func classify(ev *Evidence, now time.Time, trace *[]RuleTrace) Classification {
	c := classifyText(ev, now, trace)
	c.OutputIsError = outputIsErrorEcho(ev)
	return c
}

// outputIsErrorEcho: the turn's only text stands inside the error the agent
// returned, so it was the error line streamed as text, not work.
func outputIsErrorEcho(ev *Evidence) bool {
	if !ev.HadOutput || ev.HadToolActivity {
		return false
	}
	out := strings.TrimSpace(ev.OutputText)
	if out == "" {
		return false
	}
	for _, field := range []string{ev.RPCMessage, ev.RPCData, ev.Err, ev.StderrTail} {
		if strings.Contains(field, out) {
			return true
		}
	}
	return false
}

func classifyText(ev *Evidence, now time.Time, trace *[]RuleTrace) Classification {
	s := newScan(ev, now)
	defer s.release()
	if trace != nil {
		for i := range ruleTable {
			r := &ruleTable[i]
			pos := r.eval(s)
			*trace = append(*trace, RuleTrace{RuleID: r.id, Matched: pos >= 0})
			if pos >= 0 {
				if r.band == bandTransport {
					r, pos = s.innerStop(r, pos, i, nil, trace)
				}
				c := s.result(r, pos)
				c.Model = s.modelOf()
				return c
			}
		}
	} else {
		// Only the rules a found keyword lets through, in table order.
		cand := s.candidates()
		for w, word := range cand {
			for word != 0 {
				i := w<<6 | mbits.TrailingZeros64(word)
				r := &ruleTable[i]
				word &= word - 1
				if pos := r.eval(s); pos >= 0 {
					if r.band == bandTransport {
						r, pos = s.innerStop(r, pos, i, &cand, nil)
					}
					c := s.result(r, pos)
					c.Model = s.modelOf()
					return c
				}
			}
		}
	}
	return Classification{
		Code:       "unknown",
		Class:      ClassUnclassified,
		RuleID:     ruleUnclassified,
		Excerpt:    s.unmatchedExcerpt(),
		ResumeSafe: false,
		Model:      s.modelOf(),
	}
}

// innerStop: a transport failure whose text goes on to name a cause that
// no replay fixes is that cause's envelope. Codex's "stream disconnected
// before completion: <message>" carries a response.failed event's own
// message (a 400 a relay put in the stream, a plan or key refusal), and a
// stderr tail that lost a fetch goes on to its final error. So after a
// transport rule at pos, a later rule (status, provider error type) that
// matches further on in the text and stops (terminal, user_action,
// wait_for_reset) decides; a transient one does not replace the transport
// reading. cand, when set, limits the rules tried to the candidates; the
// trace gains the rule that decides instead.
func (s *scan) innerStop(r *rule, pos, i int, cand *ruleSet, trace *[]RuleTrace) (*rule, int) {
	for j := i + 1; j < len(ruleTable); j++ {
		if cand != nil && cand[j>>6]&(1<<(j&63)) == 0 {
			continue
		}
		q := &ruleTable[j]
		if q.band <= bandTransport || q.class != ClassTerminal && q.class != ClassUserAction && q.class != ClassWaitForReset {
			continue
		}
		if p := q.eval(s); p > pos {
			if trace != nil {
				*trace = append(*trace, RuleTrace{RuleID: q.id, Matched: true})
			}
			return q, p
		}
	}
	return r, pos
}

// scan is one classification in progress: the evidence text joined once and
// lowercased once (ASCII only, so byte offsets in low and raw agree). Scans
// are pooled: low is only read during classify, and nothing returned may
// point into it (excerpts come from raw).
type scan struct {
	ev    Evidence // a copy, so the pooled scan holds the evidence too
	now   time.Time
	buf   []byte   // backing array of low, reused
	raw   string   // message, data, err and the stderr tail, newline-joined
	low   string   // raw with ASCII letters lowercased
	found kwSet    // keywords present in low
	last  lastEnds // where tracked keywords (status markers) last ended

	rpcEnd int // raw[:rpcEnd] is the JSON-RPC message and data

	// leadGlyph is the column of the "⎿" that opened the text, blanked in
	// low so the words after it open their line; -1 when there was none.
	leadGlyph int

	statusDone bool
	status     int // effective HTTP status, 0 when unknown
	statusPos  int // offset of the status in raw; 0 for a structured status

	// longLimit's answer, once asked: several rate-limit readings ask it
	// of the same text.
	longLimitDone, longLimitSeen bool

	// lineWidths' answer, once asked: the widest line and how many line
	// ends look like a wrap's.
	widthsDone    bool
	width, breaks int
}

func newScan(ev *Evidence, now time.Time) *scan {
	var parts [7]string
	parts[0], parts[1] = window(ev.RPCMessage)
	parts[2], parts[3] = window(ev.RPCData)
	parts[4], parts[5] = window(ev.Err)
	parts[6] = tailOf(ev.StderrTail, maxStderrBytes)
	for i := range parts {
		// Blanks a paste or a log left after the text's last word
		// ("…: EOF  ") would stand between a rule and the end it reads.
		parts[i] = strings.TrimRight(renderedText(parts[i]), " \t\r\n")
	}
	raw := joinNonEmpty(parts[:])
	rpcEnd := -1
	for _, p := range parts[:4] {
		if p != "" {
			rpcEnd += len(p) + 1
		}
	}
	s := scanPool.Get().(*scan)
	buf := s.buf
	*s = scan{ev: *ev, now: now, raw: raw, rpcEnd: max(rpcEnd, 0)}
	s.ev.HTTPStatus = structuredStatus(ev)
	if cap(buf) < len(raw) {
		buf = make([]byte, len(raw))
	}
	s.buf = buf[:len(raw)]
	keywords.scan(raw, s.buf, &s.found, &s.last)
	s.leadGlyph = normalizeLow(s.buf)
	// buf is not written again until release: share it rather than copy it.
	s.low = unsafe.String(unsafe.SliceData(s.buf), len(s.buf))
	s.unwrapLow()
	return s
}

// unwrapLow turns each hard wrap of a long line (wrapContinues) into a
// blank in low, so a line a terminal broke at its width reads as the one
// line it was. Each decision reads its own line (from the newline before
// it in raw) and the next line's first word, which earlier blanks do not
// move.
func (s *scan) unwrapLow() {
	for ls := 0; ; {
		j := strings.IndexByte(s.raw[ls:], '\n')
		if j < 0 {
			return
		}
		j += ls
		// An escaped newline (normalizeLow) may have opened a line since.
		if strings.IndexByte(s.low[ls:j], '\n') >= 0 {
			ls += strings.LastIndexByte(s.low[ls:j], '\n') + 1
		}
		if s.wrapContinues(ls, j) {
			s.buf[j] = ' '
		}
		ls = j + 1
	}
}

// normalizeLow evens out, in the lowered text (offsets stay those of
// raw), the ways a pasted or logged text wraps its lines:
//   - an escaped newline inside a JSON string (a backslash and "n": an
//     ACP error's details, a log's message field) becomes a blank and a
//     newline, so a tail of lines quoted in JSON reads line by line (its
//     last error, a retry line and what follows it) as the same lines
//     unquoted do;
//   - what opens a line before its words, a Markdown quote's "> " or a
//     log's time and level, becomes blanks (blankLineHeader), so a quoted
//     or logged retry line still opens its line; a code fence's line is
//     blank;
//   - a Claude Code TUI glyph ("⎿  API Error: 529 …", the error line copied
//     out of the terminal) that opens the text becomes blanks too, so its
//     words open the line as they do without it; its column is returned
//     (-1 when there is none), for the tree reading of noticeOver. Later
//     "⎿" lines are the tree itself and stay.
func normalizeLow(low []byte) int {
	for i := 0; i+1 < len(low); {
		j := bytes.IndexByte(low[i:len(low)-1], '\\')
		if j < 0 {
			break
		}
		j += i
		if low[j+1] == 'n' && (j == 0 || low[j-1] != '\\') && !inWindowsPath(low, j) {
			low[j], low[j+1] = ' ', '\n'
		}
		i = j + 2
	}
	blankLineHeader(low, 0)
	glyph := indentOf(unsafe.String(unsafe.SliceData(low), len(low)))
	if bytes.HasPrefix(low[glyph:], treeGlyph) {
		copy(low[glyph:], "   ")
	} else {
		glyph = -1
	}
	for i := 0; i < len(low); {
		j := bytes.IndexByte(low[i:], '\n')
		if j < 0 {
			return glyph
		}
		if j > 0 && low[i+j-1] == '\r' {
			low[i+j-1] = ' ' // a Windows line end reads as its line's trailing blank
		}
		i += j + 1
		blankLineHeader(low, i)
	}
	return glyph
}

// treeGlyph is the glyph Claude Code's TUI opens each message of a turn with.
var treeGlyph = []byte("⎿")

// inWindowsPath: the backslash at j is a separator of a Windows path
// (C:\Users\me\npm\…), not a JSON escape: its token, back to a blank or
// quote, holds a drive's ":\" or another backslash that no JSON escape
// begins.
func inWindowsPath(low []byte, j int) bool {
	for k := j - 1; k >= 0 && j-k < 260; k-- {
		switch c := low[k]; c {
		case ' ', '\t', '\n', '"', '\'', '(', '[', '=':
			return false
		case '\\':
			if k > 0 && low[k-1] == ':' {
				return true
			}
			if k+1 < len(low) && !strings.ContainsRune("ntr\"\\/ubf", rune(low[k+1])) {
				return true
			}
		}
	}
	return false
}

// blankLineHeader blanks what a line at i opens with before its words: a
// Markdown quote (quoteAt), a code fence's whole line (fenceAt), or a log's
// ISO 8601 time and level
// ("2026-11-30T10:00:00.123Z ERROR ", "2026-11-30 10:00:00,123 - WARNING - ").
func blankLineHeader(low []byte, i int) {
	quoteAt(low, i)
	if fenceAt(low, i) {
		return
	}
	for i < len(low) && (low[i] == ' ' || low[i] == '\t') {
		i++
	}
	// The time may stand in brackets ("[2026-01-04T09:33:53.002Z] [ERROR]").
	bracketed := i < len(low) && low[i] == '['
	t := i
	if bracketed {
		t++
	}
	n := isoTimeLen(low[t:])
	if n == 0 || bracketed && (t+n >= len(low) || low[t+n] != ']') {
		return
	}
	j := t + n
	if bracketed {
		j++
	}
	k := j
	for k < len(low) && (low[k] == ' ' || low[k] == '-' || low[k] == '|') {
		k++
	}
	// A VS Code output channel writes the level in brackets: "2025-06-03
	// 09:38:43.092 [error] …" (Copilot Chat's, Cline's, Roo Code's logs).
	bracket := k < len(low) && low[k] == '['
	if bracket {
		k++
	}
	for _, lv := range logLevels {
		if bytes.HasPrefix(low[k:], []byte(lv)) {
			e := k + len(lv)
			if bracket {
				if e >= len(low) || low[e] != ']' {
					break
				}
				e++
				if e < len(low) && low[e] != ' ' {
					break
				}
			}
			if e < len(low) && (low[e] == ' ' || low[e] == ':') {
				for e < len(low) && (low[e] == ' ' || low[e] == ':' || low[e] == '-' || low[e] == '|') {
					e++
				}
				j = e
			}
			break
		}
	}
	for ; i < j; i++ {
		low[i] = ' '
	}
}

var logLevels = []string{"error", "warning", "warn", "info", "debug", "fatal", "err", "erro"}

// isoTimeLen is the length of an ISO 8601 date and time that b opens with
// ("2026-11-30T10:00:00.123Z", "2026-11-30 10:00:00,123", an offset after
// it), 0 when it opens with none.
func isoTimeLen(b []byte) int {
	const shape = "dddd-dd-dd?dd:dd"
	if len(b) < len(shape) {
		return 0
	}
	for k := 0; k < len(shape); k++ {
		switch shape[k] {
		case 'd':
			if b[k] < '0' || b[k] > '9' {
				return 0
			}
		case '?':
			if b[k] != 't' && b[k] != ' ' {
				return 0
			}
		default:
			if b[k] != shape[k] {
				return 0
			}
		}
	}
	n := len(shape)
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || b[n] == ':' || b[n] == '.' || b[n] == ',' || b[n] == '+') {
		n++
	}
	if n < len(b) && b[n] == 'z' && (n+1 == len(b) || b[n+1] < 'a' || b[n+1] > 'z') {
		n++ // UTC's "Z", not a word's first letter
	}
	return n
}

// fenceAt blanks the line at i when it is a Markdown code fence (```,
// ```json, ~~~) and reports whether it was: a paste's fences are not lines
// of the error, so "Retrying…" before a closing fence still ends the text.
func fenceAt(low []byte, i int) bool {
	j := i
	for j < len(low) && (low[j] == ' ' || low[j] == '\t') {
		j++
	}
	if !bytes.HasPrefix(low[j:], []byte("```")) && !bytes.HasPrefix(low[j:], []byte("~~~")) {
		return false
	}
	e := j + 3
	for e < len(low) && low[e] != '\n' {
		if c := low[e]; !isLetter(c) && !isDigit(c) && c != '-' && c != '+' && c != '_' && c != ' ' && c != '\r' && c != low[j] {
			return false
		}
		e++
	}
	for ; j < e; j++ {
		low[j] = ' '
	}
	return true
}

// quoteAt blanks a Markdown quote marker ("> ", "> > ", ">" alone) that
// opens the line starting at i, after its indentation.
func quoteAt(low []byte, i int) {
	for i < len(low) && (low[i] == ' ' || low[i] == '\t') {
		i++
	}
	for i < len(low) && low[i] == '>' && (i+1 == len(low) || low[i+1] == ' ' || low[i+1] == '\n' || low[i+1] == '>') {
		low[i] = ' '
		i++
		for i < len(low) && low[i] == ' ' {
			i++
		}
	}
}

// htmlEscape is the character a JSON \u escape of <, >, & or ' stands for,
// or 0.
func htmlEscape(e string) byte {
	for _, h := range htmlEscapes {
		if strings.EqualFold(e, h.esc) { // no lowered copy: this runs on every backslash of such a text
			return h.c
		}
	}
	return 0
}

var htmlEscapes = []struct {
	esc string
	c   byte
}{{`\u003c`, '<'}, {`\u003e`, '>'}, {`\u0026`, '&'}, {`\u0027`, '\''}}

// renderedText returns raw without a terminal's colour and cursor
// sequences (ESC [ … final byte, and the same with its ESC escaped in JSON
// as \u001b), and with Go's JSON escapes of <, >, & and ' undone, so
// keywords, lines and excerpts read the text as it rendered: a coloured
// "Retrying in 5s…" still ends its line. raw itself, uncopied, when it
// holds none.
func renderedText(raw string) string {
	if raw == "" || strings.IndexByte(raw, 0x1b) < 0 && !strings.Contains(raw, `\u00`) && !strings.Contains(raw, `\U00`) {
		return raw
	}
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		n := 0
		switch {
		case raw[i] == 0x1b:
			n = csiLen(raw[i+1:]) + 1
		case raw[i] == '\\' && i+6 <= len(raw) && strings.EqualFold(raw[i:i+6], `\u001b`):
			if m := csiLen(raw[i+6:]); m > 0 {
				n = m + 6
			}
		case raw[i] == '\\' && i+6 <= len(raw) && htmlEscape(raw[i:i+6]) != 0:
			// Go's encoding/json writes <, > and & as \u003c, \u003e,
			// \u0026 (and ' as \u0027): a Go tool's JSON log of an HTML
			// error page or of "n_keep (15028) >= n_ctx" reads as written.
			b = append(b, htmlEscape(raw[i:i+6]))
			i += 5
			continue
		}
		if n == 0 {
			b = append(b, raw[i])
			continue
		}
		i += n - 1
	}
	return string(b)
}

// csiLen is the length of a control sequence's body after its ESC: "["
// then parameter bytes and one final byte; 0 when b opens no such sequence.
func csiLen(b string) int {
	if len(b) == 0 || b[0] != '[' {
		return 0
	}
	for k := 1; k < len(b) && k < 32; k++ {
		switch c := b[k]; {
		case c >= '0' && c <= '9' || c == ';' || c == '?':
		case c >= 0x40 && c <= 0x7e:
			return k + 1
		default:
			return 0
		}
	}
	return 0
}

var scanPool = sync.Pool{New: func() any { return new(scan) }}

// release returns s to the pool; s and s.low must not be used afterwards.
func (s *scan) release() {
	buf := s.buf
	if cap(buf) > 2*(maxStderrBytes+3*maxFieldBytes) {
		buf = nil
	}
	*s = scan{buf: buf[:0]}
	scanPool.Put(s)
}

// hasKW reports whether k occurs: a bit test.
func (s *scan) hasKW(k *kw) bool { return s.found.has(k.id) }

// indexKW is strings.Index(s.low, k.w), skipped when k is absent. The
// automaton reads text canonically (canonKeyword), so a keyword it found
// may not occur literally (escaped JSON): then the search skips the
// backslashes and quotes.
func (s *scan) indexKW(k *kw) int {
	if !s.hasKW(k) {
		return -1
	}
	return s.locate(k.w)
}

// coreWord is the longest run of letters, digits, '_', '-' and '.' in w:
// for `"type":"overloaded_error"` the value that tells it apart.
func coreWord(w string) string {
	best, start := "", -1
	for i := 0; i <= len(w); i++ {
		if i < len(w) && (isAlnum(w[i]) || w[i] == '-' || w[i] == '.') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = w[start:i]
		}
		start = -1
	}
	return best
}

// locate is strings.Index(s.low, w), or, when w only occurs in the
// canonical reading of the text, the offset of its first word in it; 0 when
// even that fails (the automaton found it, so it is there).
func (s *scan) locate(w string) int {
	if i := strings.Index(s.low, w); i >= 0 {
		return i
	}
	if i := looseIndex(s.low, w, false); i >= 0 {
		return i
	}
	if core := coreWord(w); core != "" {
		if i := strings.Index(s.low, core); i >= 0 {
			return i
		}
	}
	return 0
}

// index is strings.Index(s.low, w) for a keyword w, or its loose match
// (looseIndex) when the automaton found w only across a wrap or an escape;
// -1 when w is absent. last asks for the last occurrence.
func (s *scan) index(w string, last bool) int {
	id, ok := keywords.id(w)
	if ok && !s.found.has(id) {
		return -1
	}
	i := -1
	if last {
		i = strings.LastIndex(s.low, w)
	} else {
		i = strings.Index(s.low, w)
	}
	if i < 0 && ok {
		i = looseIndex(s.low, w, last)
	}
	return i
}

// looseIndex finds w in low the way the automaton reads text (canonKeyword):
// backslashes skipped, a single quote read as a double one, blanks after a
// colon skipped, a run of blanks and box borders read as one space. It is
// only asked when the automaton found w and strings.Index did not (a line
// wrapped inside w, an escaped quote), so its worst case, quadratic in
// len(w), is off the common path. last picks the last occurrence.
func looseIndex(low, w string, last bool) int {
	w = canonKeyword(w)
	if w == "" {
		return -1
	}
	if last {
		for i := len(low) - 1; i >= 0; i-- {
			if looseAt(low, i, w) {
				return i
			}
		}
		return -1
	}
	for i := range len(low) {
		if looseAt(low, i, w) {
			return i
		}
	}
	return -1
}

// looseAt reports whether the canonical keyword w starts at low[i].
func looseAt(low string, i int, w string) bool { return looseEnd(low, i, w) >= 0 }

// looseEnd is the offset just past the loose match of the canonical keyword
// w that starts at low[i], or -1 when w does not start there: a wrap folded
// inside w ("try\n    again in") makes the match longer than w.
func looseEnd(low string, i int, w string) int {
	var prev byte
	for j := 0; j < len(w); {
		if i >= len(low) {
			return -1
		}
		b, n := low[i], 1
		switch {
		case b == '\\':
			if j == 0 {
				return -1
			}
			i++
			continue
		case b == 0xE2 && boxBorder(low, i):
			b, n = ' ', 3
		case isBlank(b):
			b = ' '
		case b == '\'':
			b = '"'
		}
		if b == ' ' && j > 0 && (prev == ' ' || prev == ':') {
			i += n
			continue
		}
		if b != w[j] {
			return -1
		}
		prev = b
		i += n
		j++
	}
	return i
}

func (s *scan) hasAnyID(ids []uint16) bool {
	for _, id := range ids {
		if s.found.has(id) {
			return true
		}
	}
	return false
}

func (s *scan) result(r *rule, pos int) Classification {
	c := Classification{Code: r.code, Class: r.class, Confidence: r.conf, RuleID: r.id}
	if r.hint != nil {
		c = fillHints(s, r.hint(s, c))
	} else {
		c = defaultHints(s, c)
	}
	c.ResumeSafe = resumeSafe(s, &c)
	c.Excerpt = s.excerpt(pos)
	return c
}

// resumeSafe: a dropped connection or an error event inside a stream leaves
// the agent's own history intact, so resuming its session duplicates nothing.
// Everything else is assumed unsafe once output or tools happened.
func resumeSafe(s *scan, c *Classification) bool {
	switch c.Code {
	case "network", "transport_lost":
		return true
	case "resume_corrupted":
		return false
	}
	if c.Class != ClassTransient {
		return false
	}
	return s.ev.HTTPStatus == 200 || s.hasKW(kwEventError) || s.hasKW(kwResponseFailed)
}

// unmatchedExcerpt shows the message when there is one, else the end of
// stderr, where the last words of a dying agent are.
func (s *scan) unmatchedExcerpt() string {
	if s.ev.RPCMessage != "" || s.ev.RPCData != "" || s.ev.Err != "" || len(s.raw) <= ExcerptMax {
		return s.excerptFrom(0)
	}
	return s.excerptFrom(tokenAfter(s.raw, len(s.raw)-ExcerptMax))
}

// excerpt shows the text around a match at pos: from the start of its line
// when that is close enough, else from a token boundary shortly before it.
func (s *scan) excerpt(pos int) string {
	pos = min(max(pos, 0), len(s.raw))
	if len(s.raw) <= ExcerptMax {
		return s.excerptFrom(0)
	}
	ls := strings.LastIndexByte(s.raw[:pos], '\n') + 1
	if pos-ls <= ExcerptMax*3/4 {
		return s.excerptFrom(ls)
	}
	return s.excerptFrom(tokenAfter(s.raw, pos-ExcerptMax/4))
}

// excerptFrom sanitises about ExcerptMax bytes from start, then caps them.
// The window ends on a token boundary, so no secret is cut in half before
// Sanitize sees it; callers start on one for the same reason.
func (s *scan) excerptFrom(start int) string {
	raw := s.raw
	end := tokenEnd(raw, min(len(raw), start+ExcerptMax))
	for start < end && !utf8.RuneStart(raw[start]) {
		start++
	}
	out := strings.TrimSpace(raw[start:end])
	if s.mayHoldSecret() {
		out = Sanitize(out)
	}
	if len(out) > ExcerptMax {
		cut := ExcerptMax
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut]
	}
	return out
}

// secretTriggers are the words every secret and home path Sanitize
// removes begins with or contains (sanitize.go: the key prefixes, "eyJ",
// "://", "-----BEGIN ", "bearer ", the home directories and the secret
// field names). The automaton looks for them in the same pass as the
// rules' words, so an excerpt of a text that holds none of them skips
// Sanitize: the excerpt is a piece of the text the automaton read.
var secretTriggers = func() []*kw {
	words := []string{"sk-", "sk_live_", "rk_live_", "sk_test_", "rk_test_", "aiza",
		"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "apka", "aipa",
		"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
		"xoxa-", "xoxb-", "xoxe-", "xoxp-", "xoxr-", "xoxs-", "xapp-",
		"eyj", "://", "-----begin ", "bearer ", "/home/", "/users/", "/root"}
	words = append(words, secretNames...)
	out := make([]*kw, len(words))
	for i, w := range words {
		out[i] = newKW(w)
	}
	return out
}()

// secretMask is secretTriggers as a set (set in init, after the ids).
var secretMask kwSet

func buildSecretMask() {
	for _, k := range secretTriggers {
		secretMask.set(k.id)
	}
}

// mayHoldSecret: Sanitize may change an excerpt of this text. False only
// when no secret trigger occurs in it and no secret was registered.
func (s *scan) mayHoldSecret() bool {
	return registered.Load() != nil || s.found.meets(&secretMask)
}

// tokenAfter moves i forward to just after a separator (at most 128 bytes).
func tokenAfter(s string, i int) int {
	for j := i; j < len(s) && j-i < 128; j++ {
		if j > 0 && isSep(s[j-1]) {
			return j
		}
	}
	return i
}

// tokenEnd moves i forward to a separator (at most 128 bytes).
func tokenEnd(s string, i int) int {
	for j := i; j < len(s) && j-i < 128; j++ {
		if isSep(s[j]) {
			return j
		}
	}
	return i
}

func isSep(b byte) bool {
	switch b {
	case ' ', '\n', '\r', '\t', '"', '\'', ',', '{', '}', '[', ']', '(', ')', '<', '>', ';':
		return true
	}
	return false
}

// window keeps a long message's head (where wrappers put the cause) and its
// tail (where a pasted log ends with the final error).
func window(s string) (head, tail string) {
	if len(s) <= maxFieldBytes {
		return s, ""
	}
	return headOf(s, maxFieldBytes/2), tailOf(s, maxFieldBytes/2)
}

// headOf returns at most n bytes from the start of s, on a rune boundary.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailOf returns at most n bytes from the end of s, starting at a line when
// one begins within the window.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	t := s[len(s)-n:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		return t[i+1:]
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return t
}

// joinNonEmpty joins the non-empty parts with newlines; it allocates only when
// more than one part is present.
func joinNonEmpty(parts []string) string {
	n, count, last := 0, 0, ""
	for _, p := range parts {
		if p != "" {
			n += len(p) + 1
			count++
			last = p
		}
	}
	if count <= 1 {
		return last
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}
