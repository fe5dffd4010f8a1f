package fleet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// relayDB is a fresh migrated database with one session.
func relayDB(t *testing.T) (*postgres.DB, string) {
	t.Helper()
	db, err := postgres.Open(t.Context(), pgtest.DSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sid := uuid.NewString()
	require.NoError(t, db.CreateTask(t.Context(),
		store.Task{ID: "t-" + sid, Title: "t", Agent: "mock", Workdir: "/w", State: store.TaskTodo, CreatedAt: now, UpdatedAt: now},
		store.Session{ID: sid, TaskID: "t-" + sid, State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}))
	return db, sid
}

// write appends events from+1…to to the session, as its owner would.
func write(t *testing.T, db *postgres.DB, sid string, from, to int64) {
	t.Helper()
	for seq := from + 1; seq <= to; seq++ {
		b, _ := json.Marshal(map[string]any{"session_id": sid, "seq": seq, "state": fmt.Sprint("s", seq)})
		require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: store.Event{SessionID: sid, Seq: seq,
			Type: "session.state_changed", Payload: b, At: time.Unix(seq, 0).UTC()}}))
	}
}

func newRelay(t *testing.T, db *postgres.DB, self string, clk quartz.Clock, exec fleet.Executor) *fleet.Relay {
	t.Helper()
	r, err := fleet.NewRelay(fleet.RelayConfig{Pool: db.Pool(), Self: self, Events: db, Execute: exec, Clock: clk, CommandTimeout: 3 * time.Second})
	require.NoError(t, err)
	require.NoError(t, r.Start(t.Context()))
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	return r
}

// seqs collects what a watch delivers.
type seqs struct {
	mu  sync.Mutex
	got []int64
}

func (s *seqs) deliver(e store.Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, e.Seq)
	return true
}

func (s *seqs) upTo(n int64) func() bool {
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.got) > 0 && s.got[len(s.got)-1] >= n
	}
}

func (s *seqs) all() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.got...)
}

func span(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// A daemon watching a session another daemon writes gets every event
// after its snapshot, in order, once: those written before the watch
// began (the catch-up) and those written after (the NOTIFY wake-ups).
func TestWatchDeliversAnotherWritersEventsInOrder(t *testing.T) {
	db, sid := relayDB(t)
	r := newRelay(t, db, uuid.NewString(), quartz.NewMock(t), nil)
	write(t, db, sid, 0, 3) // the snapshot's
	write(t, db, sid, 3, 5) // between the snapshot and the watch
	var a, b seqs
	stopA := r.Watch(sid, 3, a.deliver)
	defer stopA()
	require.Eventually(t, a.upTo(5), 10*time.Second, 5*time.Millisecond)
	stopB := r.Watch(sid, 4, b.deliver) // a second client, further on
	write(t, db, sid, 5, 40)
	require.Eventually(t, a.upTo(40), 10*time.Second, 5*time.Millisecond)
	require.Eventually(t, b.upTo(40), 10*time.Second, 5*time.Millisecond)
	require.Equal(t, span(4, 40), a.all())
	require.Equal(t, span(5, 40), b.all())

	stopB()
	stopB() // twice is harmless
	write(t, db, sid, 40, 41)
	require.Eventually(t, a.upTo(41), 10*time.Second, 5*time.Millisecond)
	require.Equal(t, span(5, 40), b.all(), "nothing after stop")

	// A watch whose deliver refuses (its client was cut) ends.
	var refused int
	var mu sync.Mutex
	r.Watch(sid, 41, func(store.Event) bool { mu.Lock(); defer mu.Unlock(); refused++; return false })
	write(t, db, sid, 41, 43)
	require.Eventually(t, a.upTo(43), 10*time.Second, 5*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 1, refused, "deliver is not called again after it refused")
}

// terminateListener kills the relay's listening backend, as a network cut
// or a server restart would.
func terminateListener(t *testing.T, db *postgres.DB) {
	t.Helper()
	var n int
	require.NoError(t, db.Pool().QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`).Scan(&n))
	require.Equal(t, 1, n, "one listening connection")
}

// Notifications sent while the listener reconnects are lost; the relay
// catches every watched session up from the tables when it is back, and
// the reconnect waits its backoff on the injected clock.
func TestListenerReconnectCatchesUp(t *testing.T) {
	db, sid := relayDB(t)
	clk := quartz.NewMock(t)
	backoff := clk.Trap().NewTimer("fleet", "listen-backoff")
	defer backoff.Close()
	r := newRelay(t, db, uuid.NewString(), clk, nil)
	var got seqs
	defer r.Watch(sid, 0, got.deliver)()
	write(t, db, sid, 0, 2)
	require.Eventually(t, got.upTo(2), 10*time.Second, 5*time.Millisecond)

	terminateListener(t, db)
	call := backoff.MustWait(t.Context()) // it noticed, and waits before reconnecting
	require.Equal(t, 100*time.Millisecond, call.Duration)
	call.MustRelease(t.Context())
	write(t, db, sid, 2, 9) // nobody listens: these wake-ups are lost

	clk.Advance(100 * time.Millisecond).MustWait(t.Context())
	require.Eventually(t, got.upTo(9), 10*time.Second, 5*time.Millisecond)
	write(t, db, sid, 9, 10) // and it listens again
	require.Eventually(t, got.upTo(10), 10*time.Second, 5*time.Millisecond)
	require.Equal(t, span(1, 10), got.all())
}

type echoed struct {
	Echo string `json:"echo"`
	From string `json:"from"`
}

// A command sent to the session's owner runs there and its answer comes
// back; a typed error comes back as it was encoded.
func TestCommandReachesTheOwnerAndAnswers(t *testing.T) {
	db, sid := relayDB(t)
	aID, bID := uuid.NewString(), uuid.NewString()
	a := newRelay(t, db, aID, quartz.NewMock(t), nil)
	var ran []fleet.Command
	var mu sync.Mutex
	newRelay(t, db, bID, quartz.NewMock(t), func(_ context.Context, c fleet.Command) fleet.Answer {
		mu.Lock()
		ran = append(ran, c)
		mu.Unlock()
		if c.Action == "session.stop" {
			return fleet.Answer{Error: json.RawMessage(`{"code":"CONFLICT","message":"nothing to stop"}`)}
		}
		var p struct{ Text string }
		_ = json.Unmarshal(c.Payload, &p)
		b, _ := json.Marshal(echoed{Echo: p.Text, From: c.Origin})
		return fleet.Answer{Result: b}
	})
	ans, err := a.Send(t.Context(), bID, fleet.Command{Action: "session.prompt", SessionID: sid, Payload: json.RawMessage(`{"text":"hello B"}`)})
	require.NoError(t, err)
	var e echoed
	require.NoError(t, json.Unmarshal(ans.Result, &e))
	require.Equal(t, echoed{Echo: "hello B", From: aID}, e)

	ans, err = a.Send(t.Context(), bID, fleet.Command{Action: "session.stop", SessionID: sid})
	require.NoError(t, err)
	require.JSONEq(t, `{"code":"CONFLICT","message":"nothing to stop"}`, string(ans.Error))
	mu.Lock()
	require.Len(t, ran, 2)
	require.Equal(t, sid, ran[0].SessionID)
	mu.Unlock()
	var left int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM fleet_commands").Scan(&left))
	require.Zero(t, left, "an answered command leaves no row")
}

// A command for an owner that does not answer is withdrawn at the timeout
// (UNAVAILABLE for the client) and never runs, even when the owner comes
// back; a command sent while the owner was not listening runs when it
// listens again.
func TestCommandToAnAbsentOwner(t *testing.T) {
	db, sid := relayDB(t)
	clk := quartz.NewMock(t)
	timeouts := clk.Trap().NewTimer("fleet", "command-timeout")
	defer timeouts.Close()
	a := newRelay(t, db, uuid.NewString(), clk, nil)
	bID := uuid.NewString()

	errc := make(chan error, 1)
	go func() { // the client's request; the test waits for it below
		_, err := a.Send(context.Background(), bID, fleet.Command{Action: "session.prompt", SessionID: sid, Payload: json.RawMessage(`{"text":"lost?"}`)})
		errc <- err
	}()
	timeouts.MustWait(t.Context()).MustRelease(t.Context())
	clk.Advance(3 * time.Second).MustWait(t.Context())
	err := <-errc
	require.ErrorIs(t, err, fleet.ErrOwnerUnavailable)
	require.ErrorContains(t, err, "nothing was done")

	var ranMu sync.Mutex
	var ran []string
	exec := func(_ context.Context, c fleet.Command) fleet.Answer {
		ranMu.Lock()
		defer ranMu.Unlock()
		ran = append(ran, string(c.Payload))
		return fleet.Answer{Result: json.RawMessage(`{}`)}
	}

	// Sent before B listens: B runs it when it starts (and not the
	// withdrawn one).
	go func() {
		_, err := a.Send(context.Background(), bID, fleet.Command{Action: "session.prompt", SessionID: sid, Payload: json.RawMessage(`{"text":"queued"}`)})
		errc <- err
	}()
	timeouts.MustWait(t.Context()).MustRelease(t.Context())
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM fleet_commands").Scan(&n))
		return n == 1
	}, 10*time.Second, 5*time.Millisecond)
	newRelay(t, db, bID, quartz.NewMock(t), exec)
	require.NoError(t, <-errc)
	ranMu.Lock()
	defer ranMu.Unlock()
	require.Equal(t, []string{`{"text":"queued"}`}, ran, "the withdrawn prompt never runs")
}

// Route reads the session lease: nobody's or this daemon's is local, a
// live other holder is the owner, an expired one is gone.
func TestRouteFollowsTheSessionLease(t *testing.T) {
	db, sid := relayDB(t)
	self, other := uuid.NewString(), uuid.NewString()
	r := newRelay(t, db, self, quartz.NewMock(t), nil)
	rt, err := r.Route(t.Context(), sid)
	require.NoError(t, err)
	require.Equal(t, fleet.Route{}, rt, "no lease: this daemon's")

	l := fleet.NewLeases(db.Pool())
	_, ok, err := l.Acquire(t.Context(), "session", sid, other, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	rt, err = r.Route(t.Context(), sid)
	require.NoError(t, err)
	require.Equal(t, fleet.Route{Owner: other}, rt)
	rt, err = r.RouteTask(t.Context(), "t-"+sid)
	require.NoError(t, err)
	require.Equal(t, fleet.Route{Owner: other}, rt, "a task goes where its session runs")
	rt, err = r.RouteTask(t.Context(), "no-such-task")
	require.NoError(t, err)
	require.Equal(t, fleet.Route{}, rt)

	expire(t, db.Pool(), "session")
	rt, err = r.Route(t.Context(), sid)
	require.NoError(t, err)
	require.Equal(t, fleet.Route{Owner: other, Gone: true}, rt)

	_, ok, err = l.Acquire(t.Context(), "session", sid, self, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	rt, err = r.Route(t.Context(), sid)
	require.NoError(t, err)
	require.Equal(t, fleet.Route{Here: true}, rt, "held here: local")
}

// A task another daemon changes is passed to TaskChanged.
func TestRelayFollowsTaskChanges(t *testing.T) {
	db, sid := relayDB(t)
	var mu sync.Mutex
	var changed []string
	r, err := fleet.NewRelay(fleet.RelayConfig{Pool: db.Pool(), Self: uuid.NewString(), Events: db, Clock: quartz.NewMock(t),
		TaskChanged: func(_ context.Context, id string) error {
			mu.Lock()
			defer mu.Unlock()
			changed = append(changed, id)
			return nil
		}})
	require.NoError(t, err)
	require.NoError(t, r.Start(t.Context()))
	defer func() { require.NoError(t, r.Close()) }()
	task, err := db.GetTask(t.Context(), "t-"+sid)
	require.NoError(t, err)
	task.Title = "renamed by another daemon"
	require.NoError(t, db.UpdateTask(t.Context(), task))
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(changed) == 1 && changed[0] == task.ID
	}, 10*time.Second, 5*time.Millisecond)
}

// The wake-up is what delivers: each write reaches the watch within a
// generous bound (no polling stands behind it), and the test logs how
// long the commit → NOTIFY → read → deliver path takes.
func TestWatchLatency(t *testing.T) {
	db, sid := relayDB(t)
	r := newRelay(t, db, uuid.NewString(), quartz.NewMock(t), nil)
	got := make(chan int64, 100)
	defer r.Watch(sid, 0, func(e store.Event) bool { got <- e.Seq; return true })()
	const n = 50
	lags := make([]time.Duration, 0, n)
	for seq := int64(1); seq <= n; seq++ {
		write(t, db, sid, seq-1, seq)
		at := time.Now()
		select {
		case s := <-got:
			require.Equal(t, seq, s)
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d was not delivered", seq)
		}
		lags = append(lags, time.Since(at))
	}
	slices.Sort(lags)
	t.Logf("commit to delivery of %d events: median %v, p90 %v, max %v", n,
		lags[n/2].Round(10*time.Microsecond), lags[n*9/10].Round(10*time.Microsecond), lags[n-1].Round(10*time.Microsecond))
}
