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

// streamSeg is the text streamed to one message since the last flush.
type streamSeg struct {
	id   string
	text []byte
}

// bufferLocked adds a chunk for message id, arming the flush timer.
func (s *Service) bufferLocked(rt *sessionRT, t *turn, id, text string) {
	if t.storeErr != nil {
		return // the turn is failing (storefault.go): nothing more is shown as saved
	}
	if rt.stream == nil {
		rt.stream = &streamBuf{}
	}
	b := rt.stream
	if n := len(b.segs); n > 0 && b.segs[n-1].id == id {
		b.segs[n-1].text = append(b.segs[n-1].text, text...)
	} else {
		b.segs = append(b.segs, streamSeg{id: id, text: []byte(text)})
	}
	b.bytes += len(text)
	if t.streamed == nil || t.streamed[len(t.streamed)-1] != id {
		t.streamed = append(t.streamed, id)
	}
	if b.bytes >= maxStreamBuffer {
		s.flushOrFailLocked(rt)
		return
	}
	if b.timer == nil {
		b.timer = s.cfg.FlushClock.AfterFunc(s.cfg.FlushInterval, func() { s.onFlushTimer(rt, b) }, "stream-flush")
	}
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

// flushBufferLocked persists and publishes the buffered text. On an error
// the rest of the buffer is dropped, and the error is the caller's to
// report: that text was neither saved nor shown.
func (s *Service) flushBufferLocked(rt *sessionRT) error {
	b := rt.stream
	if b == nil {
		return nil
	}
	rt.stream = nil // a session between replies keeps no buffer
	if b.timer != nil {
		b.timer.Stop()
	}
	segs := b.segs
	for _, seg := range segs {
		delta := string(seg.text)
		if err := s.persistLocked(rt, "session.message.updated", map[string]any{"message_id": seg.id, "delta": delta},
			change{append: &store.TextAppend{MessageID: seg.id, Delta: delta}}); err != nil {
			return err
		}
	}
	return nil
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
