package postgres

import (
	"fmt"
	"strconv"
	"strings"
)

// EventsChannel is the channel on which every committed event write wakes
// the fleet's listeners (migration 0005's trigger): one notification per
// session and statement, "<session_id> <seq>", seq the highest written.
// It carries ids only; a listener reads the events from the table, after
// the seq it has already delivered, so a lost or merged notification
// loses nothing as long as a later one (or a catch-up) follows.
//
// The notification is sent by a statement trigger on events, not by the
// Go write path, so it is part of the writing transaction whichever way
// the write is made (one statement, a transaction, a group commit) and
// PostgreSQL delivers it at the commit: a listener never reads ahead of
// the data, and a rolled-back write wakes nobody.
const EventsChannel = "orchestratord_events"

// TasksChannel wakes the fleet's listeners with a task's id whenever its
// row is created, changed or deleted, or one of its sessions changes state
// (migration 0007's triggers), at the commit of the change.
const TasksChannel = "orchestratord_tasks"

// ParseEventNotification reads an EventsChannel payload.
func ParseEventNotification(payload string) (sessionID string, seq int64, err error) {
	sid, s, ok := strings.Cut(payload, " ")
	if ok {
		seq, err = strconv.ParseInt(s, 10, 64)
	}
	if !ok || err != nil || sid == "" || seq < 1 {
		return "", 0, fmt.Errorf("store: event notification %q is not \"<session_id> <seq>\"", payload)
	}
	return sid, seq, nil
}
