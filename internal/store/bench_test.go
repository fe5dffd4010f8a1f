package store_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// chunkPayload is the size of a typical session.message.updated payload
// for one streamed chunk.
var chunkPayload = []byte(`{"session_id":"s1","message_id":"a1","delta":"the quick brown fox ","seq":0}`)

const chunk = "the quick brown fox " // 20 bytes

// streamer appends chunks to one session the way a streamed reply does:
// a message.added event creates the agent message, then every chunk is an
// event that appends its delta to that message. Every chunksPerReply chunks
// a new reply starts, so the benchmark is steady-state rather than one
// message growing with b.N (text || delta rewrites the whole value, so the
// cost of an append grows with the message; see the "64KB message" case).
type streamer struct {
	db             *store.DB
	session        string
	seq            int64
	msg            string
	n              int
	chunksPerReply int
	initialText    string
}

func (s *streamer) step(b *testing.B) error {
	s.seq++
	w := store.EventWrite{Event: store.Event{
		SessionID: s.session, Seq: s.seq, Type: "session.message.updated", Payload: chunkPayload,
		At: base.Add(time.Duration(s.seq)),
	}}
	if s.n%s.chunksPerReply == 0 {
		s.msg = fmt.Sprintf("%s-m%d", s.session, s.seq)
		w.Event.Type = "session.message.added"
		w.UpsertMessage = &store.Message{ID: s.msg, Role: "agent", Text: s.initialText}
	} else {
		w.AppendText = &store.TextAppend{MessageID: s.msg, Delta: chunk}
	}
	s.n++
	return s.db.AppendEvent(b.Context(), w)
}

// BenchmarkAppendEvent measures the per-chunk cost of streaming: one event
// appended and one message's text extended, in one transaction.
func BenchmarkAppendEvent(b *testing.B) {
	for _, tc := range []struct {
		name    string
		initial int // bytes of text the message starts with
	}{
		{"4KB reply", 0},           // 200 chunks of 20 B
		{"64KB message", 64 << 10}, // appends to a long message
	} {
		b.Run(tc.name, func(b *testing.B) {
			db := newStore(b)
			seed(b, db, "t1", "s1")
			s := &streamer{db: db, session: "s1", chunksPerReply: 200, initialText: strings.Repeat("x", tc.initial)}
			b.ReportAllocs()
			for b.Loop() {
				if err := s.step(b); err != nil {
					b.Fatal(err)
				}
			}
		})
	}

	// Goroutines, one session each, share the single writer; writes that
	// queue while a commit runs share the next commit (group commit).
	for _, par := range []struct {
		name string
		mult int // goroutines per GOMAXPROCS
	}{{"parallel sessions", 1}, {"500 sessions at once", 250}} {
		b.Run(par.name, func(b *testing.B) { parallelAppend(b, par.mult) })
	}
}

func parallelAppend(b *testing.B, mult int) {
	db := newStore(b)
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(mult)
	b.RunParallel(func(pb *testing.PB) {
		n := next.Add(1)
		taskID, sessID := fmt.Sprintf("t%d", n), fmt.Sprintf("s%d", n)
		if err := db.CreateTask(b.Context(), store.Task{ID: taskID, State: store.TaskInProgress},
			store.Session{ID: sessID, State: store.SessionRunning}); err != nil {
			b.Error(err)
			return
		}
		s := &streamer{db: db, session: sessID, chunksPerReply: 200}
		for pb.Next() {
			if err := s.step(b); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
