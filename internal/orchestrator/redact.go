package orchestrator

// Secrets never leave the process: every message an agent's output becomes
// is sanitised (routingerr.Sanitize) before it is persisted or published,
// and so is the evidence kept in the executions history. Streamed text is
// sanitised as a whole, not chunk by chunk: a key split over two chunks is
// redacted like one sent whole.

import (
	"bytes"
	"strings"

	"github.com/google/uuid"

	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// sanitizeMessage sanitises a message's text and its metadata's strings.
func sanitizeMessage(m *store.Message) {
	m.Text = routingerr.Sanitize(m.Text)
	for k, v := range m.Metadata {
		if s, ok := v.(string); ok {
			if c := routingerr.Sanitize(s); c != s {
				m.Metadata[k] = c
			}
		}
	}
}

// Bounds of a redactor's window of raw text (see commit).
const (
	redactWindow  = 512      // past this, text older than redactContext is committed at a space
	redactContext = 128      // raw text kept as context for what follows ("Authorization: Bearer ")
	redactMaxHold = 64 << 10 // a word (or an unterminated key block) longer than this is shown anyway
)

// redactor sanitises one streamed message. A word is held back until
// whitespace follows it, because its end may still turn it into a secret;
// what is shown is always the sanitised form of the text so far, minus that
// held-back tail.
//
// A chunk costs its own length plus, when it moves what is shown, one
// Sanitize of the window: the window is a byte buffer appended to in place,
// the last whitespace in it is tracked as chunks arrive (not searched for
// in the whole window every time), and a chunk that shows nothing new (a
// long word still growing) neither sanitises nor tries to commit again.
// Before, each chunk of a reply without whitespace copied and scanned the
// whole held-back word: 50,000 chunks of 20 B cost 1.5 s of CPU.
type redactor struct {
	window []byte // raw text after the committed part
	sent   string // sanitised form of the part of window already shown
	shown  int    // bytes of window that sent stands for
	// exact: sent is Sanitize(window[:shown]) itself, not what is left of
	// a longer text's sanitised form after a commit, so showing the same
	// cut again would change nothing.
	exact  bool
	lastWS int // window[:lastWS] ends in whitespace; 0: none in window
	// failed is the commit attempt that kept everything, so the same
	// attempt (the same cut, the same window bounds) is not made again.
	failed commitTry
}

// commitTry is what a commit's outcome depends on besides window[:cut],
// which does not change while nothing is committed.
type commitTry struct {
	cut            int
	long, overHold bool
	valid          bool
}

// next adds raw text (final: the stream ends, hold nothing back) and
// returns what to show: drop bytes of the text shown so far are removed
// from its end (0 unless a shown part now reads differently, which the
// sanitiser's design avoids), then delta is appended.
func (r *redactor) next(chunk string, final bool) (delta string, drop int) {
	if i := strings.LastIndexAny(chunk, " \t\r\n"); i >= 0 {
		r.lastWS = len(r.window) + i + 1
	}
	r.window = append(r.window, chunk...)
	cut := len(r.window)
	if !final && cut <= redactMaxHold {
		cut = r.lastWS
	}
	cut = max(cut, r.shown) // what was shown is never held back again
	if cut != r.shown || !r.exact {
		cand := routingerr.Sanitize(string(r.window[:cut]))
		if strings.HasPrefix(cand, r.sent) {
			delta = cand[len(r.sent):]
		} else {
			delta, drop = cand, len(r.sent)
		}
		r.sent, r.shown, r.exact = cand, cut, true
	}
	r.commit(cut)
	return delta, drop
}

// commit forgets raw text that is shown and can no longer change: whole
// lines, or in a long line all but the last redactContext bytes, unless a
// private-key block is open in it. Each chunk then costs the window, not
// the whole message.
func (r *redactor) commit(cut int) {
	try := commitTry{cut: cut, long: len(r.window) > redactWindow, overHold: len(r.window) > redactMaxHold, valid: true}
	if try == r.failed {
		return // window[:cut] is unchanged since this very attempt kept it all
	}
	var p int // commit r.window[:p]
	if try.long {
		if lim := cut - redactContext; lim > 0 {
			p = lastSpace(r.window[:lim]) + 1
			if p == 0 && cut > redactMaxHold {
				// A word this long was shown anyway (next): keep only its
				// context, or a reply without whitespace costs each chunk
				// the whole text so far.
				p = lim
			}
		}
	} else {
		p = bytes.LastIndexByte(r.window[:cut], '\n') + 1
	}
	if p == 0 {
		r.failed = try
		return
	}
	head := string(r.window[:p])
	if b := strings.LastIndex(head, "-----BEGIN "); b >= 0 && !strings.Contains(head[b:], "-----END ") && !try.overHold {
		r.failed = try
		return
	}
	sh := routingerr.Sanitize(head)
	if !strings.HasPrefix(r.sent, sh) {
		r.failed = try
		return
	}
	r.window = r.window[p:]
	r.sent = r.sent[len(sh):]
	r.shown -= p
	r.lastWS = max(r.lastWS-p, 0)
	r.exact = false
	r.failed = commitTry{}
}

// lastSpace is strings.LastIndexAny(string(b), " \t\r\n") without the copy.
func lastSpace(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			return i
		}
	}
	return -1
}

// stream returns the turn's redactor for a role, creating it.
func (t *turn) stream(role string) *redactor {
	if t.streams == nil {
		t.streams = make(map[string]*redactor)
	}
	r := t.streams[role]
	if r == nil {
		r = &redactor{}
		t.streams[role] = r
	}
	return r
}

// showStreamLocked applies a redactor's answer to the streamed message *id,
// creating the message at its first shown text.
func (s *Service) showStreamLocked(rt *sessionRT, t *turn, id *string, role, delta string, drop int) {
	if drop > 0 && *id != "" {
		// Not expected (see TestSanitizeGrowingText), so not fast.
		s.flushOrFailLocked(rt) // the stored text must hold what was streamed so far
		msgs, _ := s.store.ListMessages(s.storeCtx(), rt.sess.ID)
		for _, m := range msgs {
			if m.ID == *id && len(m.Text) >= drop {
				m.Text = m.Text[:len(m.Text)-drop] + delta
				_ = s.replaceMessageLocked(rt, m)
			}
		}
		return
	}
	if delta == "" {
		return
	}
	if *id == "" {
		// Added by the next flush, with the text streamed to it until then.
		now := s.now()
		m := store.Message{ID: uuid.NewString(), SessionID: rt.sess.ID, TurnID: t.id, Role: role, Text: delta, CreatedAt: now, UpdatedAt: now}
		sanitizeMessage(&m)
		if s.stageAddLocked(rt, t, m) {
			*id = m.ID
			if role == "agent" {
				t.agentMsgs = append(t.agentMsgs, m.ID) // also when created by a flush
			}
		}
		return
	}
	s.bufferLocked(rt, t, *id, delta) // written and sent with the next flush (stream.go)
}

// flushStreamLocked shows what the role's stream still holds back: at the
// end of the turn, or when its message ends (a tool call starts a new one).
func (s *Service) flushStreamLocked(rt *sessionRT, t *turn, id *string, role string) {
	r := t.streams[role]
	if r == nil {
		return
	}
	delete(t.streams, role)
	delta, drop := r.next("", true)
	s.showStreamLocked(rt, t, id, role, delta, drop)
}

// flushStreamsLocked flushes every stream of the turn.
func (s *Service) flushStreamsLocked(rt *sessionRT, t *turn) {
	s.flushStreamLocked(rt, t, &t.agentMsg, "agent")
	s.flushStreamLocked(rt, t, &t.thoughtMsg, "thought")
}
