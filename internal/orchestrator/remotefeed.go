package orchestrator

// The feed of a subscription to a session another daemon of the fleet
// runs (remote.go), and its snapshot's pages. Locally a page is read under
// the session's lock, so it sits in the feed exactly between the events it
// reflects and the later ones (page.go). A relayed session is written by
// its owner meanwhile, so here a page is read as of one instant of the
// store together with the events up to that instant (the store's
// PageAsOf), the relay's deliveries are held back while it is read, and
// the feed gets the events up to the page, the page, then the rest — each
// event once, in order. The events a read catches up with are bounded (a
// replay's four pages); a longer catch-up takes a few reads, and a
// subscriber further behind than that is cut and subscribes again.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// remoteFeed is the relay's side of a Subscription.
type remoteFeed struct {
	src       RemoteSessions
	sessionID string
	taskID    string
	sub       *Subscription

	mu        sync.Mutex // guards the fields below
	delivered int64      // seq of the last event put into sub
	reading   bool       // a page is being read: deliveries wait in held
	held      []Notification
}

// watchRemote feeds sub with the session's events after after, from src.
func watchRemote(src RemoteSessions, sub *Subscription, taskID, sessionID string, after int64) {
	rf := &remoteFeed{src: src, sessionID: sessionID, taskID: taskID, sub: sub, delivered: after}
	sub.mu.Lock()
	sub.remoteFeed = rf
	sub.mu.Unlock()
	sub.setRemove(src.Watch(sessionID, after, rf.deliver))
}

// deliver is the relay's callback: never blocks.
func (rf *remoteFeed) deliver(e store.Event) bool {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if e.Seq <= rf.delivered {
		return true // put in already, by a page's catch-up
	}
	n := Notification{Action: e.Type, Seq: e.Seq, Payload: e.Payload, At: e.At}
	if rf.reading {
		if len(rf.held) >= cap(rf.sub.c) {
			rf.sub.cut() // as slow as a full buffer: the client resubscribes
			return false
		}
		rf.held = append(rf.held, n)
		return true
	}
	rf.delivered = e.Seq
	return rf.sub.deliver(n)
}

// pageReads bounds the reads of one page whose catch-up (the events the
// relay has not delivered yet) is longer than one read's bound: each read
// puts the events it got into the feed and the next one goes on after
// them. A subscriber that is still behind after that many is cut, as a
// full buffer cuts it; it subscribes again with its after_seq.
const pageReads = 4

// page puts the snapshot's page at cur into the feed, in order with the
// events (see the file's comment). Each read is bounded: maxBytes of
// messages, eventBytes of events.
func (rf *remoteFeed) page(ctx context.Context, cur snapshotCursor, maxBytes, eventBytes int, now time.Time) error {
	rf.mu.Lock()
	if rf.reading {
		rf.mu.Unlock()
		return fmt.Errorf("%w: a page of session %q is being read; ask for the next once it came", ErrConflict, rf.sessionID)
	}
	rf.reading = true
	after := rf.delivered // every event up to it was committed before the read below starts
	rf.mu.Unlock()
	var err error
	for read := 1; ; read++ {
		var pg store.PageAsOf
		pg, err = rf.src.SessionPageAsOf(ctx, rf.sessionID,
			store.MessagePage{MaxSeq: cur.until, AfterSeq: cur.afterSeq, AfterID: cur.afterID, MaxBytes: maxBytes}, after, eventBytes)
		rf.mu.Lock()
		if err != nil {
			break
		}
		live := true
		for _, e := range pg.Events {
			if e.Seq > rf.delivered && live {
				live = rf.sub.deliver(Notification{Action: e.Type, Seq: e.Seq, Payload: e.Payload, At: e.At})
				rf.delivered = e.Seq
			}
		}
		if !live {
			break // cut: the page would go nowhere
		}
		if rf.delivered < pg.Session.LastSeq {
			// The read's events stopped short of what the page reflects.
			if read == pageReads {
				rf.sub.cut()
				break
			}
			rf.dropHeldLocked()
			after = rf.delivered
			rf.mu.Unlock()
			continue
		}
		next := ""
		if pg.More && len(pg.Messages) > 0 {
			last := pg.Messages[len(pg.Messages)-1]
			next = snapshotCursor{until: cur.until, afterSeq: last.Seq, afterID: last.ID}.String()
		}
		payload, jerr := jsonOf(Page{SessionID: rf.sessionID, Messages: pg.Messages, AsOfSeq: pg.Session.LastSeq, NextCursor: next})
		if jerr != nil {
			err = fmt.Errorf("encode page: %w", jerr)
		} else {
			rf.sub.deliver(Notification{Action: "session.page", Payload: payload, At: now})
		}
		break
	}
	defer rf.mu.Unlock()
	rf.reading = false
	held := rf.held
	rf.held = nil
	for _, n := range held {
		if n.Seq > rf.delivered {
			rf.sub.deliver(n)
			rf.delivered = n.Seq
		}
	}
	if err != nil {
		return fmt.Errorf("read page: %w", err)
	}
	return nil
}

// dropHeldLocked forgets the held deliveries that a read between two of
// a page's reads put into the feed already, so that they do not fill the
// room held has (a subscriber's buffer) while the page is still read.
func (rf *remoteFeed) dropHeldLocked() {
	kept := rf.held[:0]
	for _, n := range rf.held {
		if n.Seq > rf.delivered {
			kept = append(kept, n)
		}
	}
	clear(rf.held[len(kept):])
	rf.held = kept
}

// remotePage is SnapshotPage for a subscription fed by the relay.
func (s *Service) remotePage(ctx context.Context, req PageRequest, rf *remoteFeed) error {
	cur, err := parseCursor(req.Cursor)
	if err != nil {
		return err
	}
	if req.SessionID != rf.sessionID || req.TaskID != "" && rf.taskID != "" && req.TaskID != rf.taskID {
		return fmt.Errorf("%w: not subscribed to session %q; subscribe first", ErrConflict, req.SessionID)
	}
	// The events a page catches up with are bounded as an after_seq
	// replay's are (SubscribeSession): four pages.
	return rf.page(ctx, cur, s.cfg.SnapshotPageBytes, 4*s.cfg.SnapshotPageBytes, s.now())
}
