package orchestrator

import (
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Streamed text is coalesced in memory and written every FlushInterval,
// not one transaction per chunk: an agent streaming as fast as it can sends
// tens of thousands of chunks a second, and the store (and a browser) take
// a few dozen writes a second gladly. A flush is one session.message.updated
// event per message streamed to since the last, {message_id, delta}, with
// the deltas of every chunk in arrival order: what subscribers receive is
// exactly what is persisted, so a replay after_seq (or after a crash) shows
// the same text a live client saw, up to the last flush.
//
// Chunks never wait for the store: the lifecycle manager delivers them
// from an unbounded queue, off the ACP connection's reader, and they only
// join the buffer here. When the store falls behind, a flush simply finds
// more to write. Every other event of the session flushes first, so seq
// order stays arrival order (a tool call after text comes after it).
//
// A streamed message's creation waits in the buffer too, with the text
// that follows it, and so does the session's move to RUNNING: a flush is
// one batch (one commit) of everything buffered, and a turn that ends
// within the interval writes them with its end (turnbatch.go). When the
// overload gate releases thousands of quick turns, that is two commits
// per turn instead of four.

const (
	// DefaultFlushInterval is Config.FlushInterval's default: about forty
	// writes a second per streaming session, well under what a browser
	// repaints, well over what a reader notices.
	DefaultFlushInterval = 25 * time.Millisecond
	// maxStreamBuffer flushes at once when this many bytes wait, so one
	// event (and one WebSocket frame) stays small however fast the agent.
	maxStreamBuffer = 256 << 10
)

// streamBuf is a session's unflushed streamed text; guarded by sessionRT.mu.
type streamBuf struct {
	segs  []streamSeg
	bytes int
	timer *quartz.Timer // armed while segs is not empty
}

// streamSeg is the text streamed to one message since the last flush, or
// an event that waits for it.
type streamSeg struct {
	id   string
	text []byte
	// add: the message is not in the store yet; the flush adds it, text
	// and all (its Text, Seq and UpdatedAt are set then).
	add *store.Message
	ev  *pendingEvent // an event (not text) that rides the flush
}

// event is the segment as an event of a batch, once it is at seq seq.
func (g streamSeg) event(seq int64) pendingEvent {
	switch {
	case g.ev != nil:
		return *g.ev
	case g.add != nil:
		m := *g.add
		m.Text, m.Seq = string(g.text), seq
		return pendingEvent{action: "session.message.added", body: map[string]any{"message": m}, c: change{upsert: &m}}
	}
	delta := string(g.text)
	return pendingEvent{action: "session.message.updated", body: map[string]any{"message_id": g.id, "delta": delta},
		c: change{append: &store.TextAppend{MessageID: g.id, Delta: delta}}}
}

// bufferLocked adds a chunk for message id, arming the flush timer.
func (s *Service) bufferLocked(rt *sessionRT, t *turn, id, text string) {
	if t.storeErr != nil {
		return // the turn is failing (storefault.go): nothing more is shown as saved
	}
	if b := rt.stream; b != nil {
		if n := len(b.segs); n > 0 && b.segs[n-1].id == id {
			b.segs[n-1].text = append(b.segs[n-1].text, text...)
			s.grewLocked(rt, len(text))
			return
		}
	}
	if t.streamed == nil || t.streamed[len(t.streamed)-1] != id {
		t.streamed = append(t.streamed, id)
	}
	s.stageLocked(rt, streamSeg{id: id, text: []byte(text)})
}

// stageAddLocked buffers the creation of message m (with its first text),
// which the text streamed to it next joins. m is complete but for Seq.
func (s *Service) stageAddLocked(rt *sessionRT, t *turn, m store.Message) bool {
	if t.storeErr != nil {
		return false
	}
	text := m.Text
	m.Text = ""
	s.stageLocked(rt, streamSeg{id: m.ID, text: []byte(text), add: &m})
	return true
}

// stageEventLocked buffers an event: it is written with the next flush,
// in its place among the text.
func (s *Service) stageEventLocked(rt *sessionRT, t *turn, e pendingEvent) {
	if t.storeErr != nil {
		return
	}
	s.stageLocked(rt, streamSeg{ev: &e})
}

// stageLocked appends a segment to the buffer.
func (s *Service) stageLocked(rt *sessionRT, g streamSeg) {
	if rt.stream == nil {
		rt.stream = &streamBuf{}
	}
	rt.stream.segs = append(rt.stream.segs, g)
	s.grewLocked(rt, len(g.text))
}

// grewLocked notes n more bytes in the buffer: it flushes at once past
// maxStreamBuffer, else arms the flush timer.
func (s *Service) grewLocked(rt *sessionRT, n int) {
	b := rt.stream
	b.bytes += n
	if b.bytes >= maxStreamBuffer {
		s.flushOrFailLocked(rt)
		return
	}
	if b.timer == nil {
		b.timer = s.cfg.FlushClock.AfterFunc(s.cfg.FlushInterval, func() { s.onFlushTimer(rt, b) }, "stream-flush")
	}
}

// stagedAdd is the buffered creation of message id; nil when it is in the
// store already (or was never buffered).
func (rt *sessionRT) stagedAdd(id string) *store.Message {
	if b := rt.stream; b != nil {
		for _, g := range b.segs {
			if g.add != nil && g.id == id {
				return g.add
			}
		}
	}
	return nil
}

func (s *Service) onFlushTimer(rt *sessionRT, b *streamBuf) {
	if !s.enter() {
		return // Close flushes what is left
	}
	defer s.leave()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.stream != b {
		return // flushed meanwhile
	}
	b.timer = nil
	s.flushOrFailLocked(rt)
}

// flushBufferLocked persists and publishes the buffer, one batch. On an
// error all of it is dropped, and the error is the caller's to report:
// that text was neither saved nor shown.
func (s *Service) flushBufferLocked(rt *sessionRT) error {
	if rt.stream == nil {
		return nil
	}
	return s.emitAllLocked(rt, nil) // takes the buffer (buildAllLocked)
}

// flushOrFailLocked flushes; a failure fails the running turn: the
// persist that failed set its storeErr and cancelled it (storefault.go),
// so it ends with the could-not-save banner instead of a reply that
// silently lacks text.
func (s *Service) flushOrFailLocked(rt *sessionRT) {
	if err := s.flushBufferLocked(rt); err != nil {
		s.log.Error("streamed text could not be saved; the turn stops", zap.String("session_id", rt.sess.ID), zap.Error(err))
	}
}

// sealLocked folds the chunks of the turn's streamed messages into their
// text once the turn is over (store.SealMessages); a failure only leaves
// the chunks in place, which read the same.
func (s *Service) sealLocked(rt *sessionRT, t *turn) {
	if len(t.streamed) == 0 {
		return
	}
	if err := s.store.SealMessages(s.storeCtx(), t.streamed...); err != nil {
		s.log.Warn("sealing streamed messages failed; their chunks stay", zap.String("session_id", rt.sess.ID), zap.Error(err))
	}
	t.streamed = nil
}
