package orchestrator

// A snapshot of a large session goes out a page at a time (DESIGN §5): the
// subscribe answer carries the first page and a cursor, and each
// session.page request puts the next page into the subscription's feed, in
// order with the live events, so that memory per client is bounded by a
// page, not by the session.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/orchestratord/orchestratord/internal/store"
)

// snapshotCursor is where a snapshot stands: the messages created up to
// until (the subscribe answer's last_seq), after (afterSeq, afterID).
type snapshotCursor struct {
	until    int64
	afterSeq int64
	afterID  string
}

func (c snapshotCursor) String() string {
	return fmt.Sprintf("%d:%d:%s", c.until, c.afterSeq, c.afterID)
}

func parseCursor(s string) (snapshotCursor, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 {
		return snapshotCursor{}, fmt.Errorf("%w: cursor %q is not one this daemon gave out", ErrValidation, s)
	}
	until, err1 := strconv.ParseInt(parts[0], 10, 64)
	after, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || until < 0 || after < -1 || after > until {
		return snapshotCursor{}, fmt.Errorf("%w: cursor %q is not one this daemon gave out", ErrValidation, s)
	}
	return snapshotCursor{until: until, afterSeq: after, afterID: parts[2]}, nil
}

// pageLocked reads the page after cur; next is "" on the last page.
func (s *Service) pageLocked(ctx context.Context, rt *sessionRT, cur snapshotCursor) (msgs []store.Message, next string, err error) {
	msgs, more, err := s.store.ListMessagesPage(ctx, rt.sess.ID, store.MessagePage{
		MaxSeq: cur.until, AfterSeq: cur.afterSeq, AfterID: cur.afterID, MaxBytes: s.cfg.SnapshotPageBytes})
	if err != nil {
		return nil, "", fmt.Errorf("list messages: %w", err)
	}
	if more && len(msgs) > 0 {
		last := msgs[len(msgs)-1]
		next = snapshotCursor{until: cur.until, afterSeq: last.Seq, afterID: last.ID}.String()
	}
	return msgs, next, nil
}

// SnapshotPage puts the page at req.Cursor into sub, the caller's
// subscription to the session, as a session.page notification.
func (s *Service) SnapshotPage(ctx context.Context, req PageRequest, sub *Subscription) error {
	if sub != nil {
		if rf := sub.remote(); rf != nil {
			return s.remotePage(ctx, req, rf) // a session another daemon runs
		}
	}
	cur, err := parseCursor(req.Cursor)
	if err != nil {
		return err
	}
	rt, err := s.session(ctx, req.SessionID, req.TaskID)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if sub == nil || !rt.subs.has(sub) {
		return fmt.Errorf("%w: not subscribed to session %q; subscribe first", ErrConflict, req.SessionID)
	}
	msgs, next, err := s.pageLocked(ctx, rt, cur)
	if err != nil {
		return err
	}
	payload, err := jsonOf(Page{SessionID: rt.sess.ID, Messages: msgs, AsOfSeq: rt.sess.LastSeq, NextCursor: next})
	if err != nil {
		return fmt.Errorf("encode page: %w", err)
	}
	sub.deliver(Notification{Action: "session.page", Payload: payload, At: s.now()})
	return nil
}
