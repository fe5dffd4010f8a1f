package orchestrator

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// Daemons of a fleet in one test: each its own Service, lifecycle manager
// and data dir, all on one real PostgreSQL database and one mock clock,
// their mock agents sharing one provider (the /wall file).

// cutGates is a daemon's FleetGates that can lose the database (its
// machine is cut off, or dies before it could say goodbye).
type cutGates struct {
	*fleet.Gates
	cut atomic.Bool
}

var errCut = errors.New("test: the database is out of reach")

func (c *cutGates) err() error {
	if c.cut.Load() {
		return errCut
	}
	return nil
}

func (c *cutGates) List(ctx context.Context) ([]fleet.GateRow, error) {
	if err := c.err(); err != nil {
		return nil, err
	}
	return c.Gates.List(ctx)
}

func (c *cutGates) Open(ctx context.Context, row fleet.GateRow) (fleet.GateRow, bool, error) {
	if err := c.err(); err != nil {
		return fleet.GateRow{}, false, err
	}
	return c.Gates.Open(ctx, row)
}

func (c *cutGates) Report(ctx context.Context, key string, openedAt time.Time, waiting int) error {
	if err := c.err(); err != nil {
		return err
	}
	return c.Gates.Report(ctx, key, openedAt, waiting)
}

func (c *cutGates) Leave(ctx context.Context, key string) error {
	if err := c.err(); err != nil {
		return err
	}
	return c.Gates.Leave(ctx, key)
}

func (c *cutGates) Schedule(ctx context.Context, l fleet.Lease, row fleet.GateRow) error {
	if err := c.err(); err != nil {
		return err
	}
	return c.Gates.Schedule(ctx, l, row)
}

func (c *cutGates) Close(ctx context.Context, key string, openedAt time.Time) (bool, error) {
	if err := c.err(); err != nil {
		return false, err
	}
	return c.Gates.Close(ctx, key, openedAt)
}

func (c *cutGates) AcquireProbe(ctx context.Context, key string) (fleet.Lease, bool, error) {
	if err := c.err(); err != nil {
		return fleet.Lease{}, false, err
	}
	return c.Gates.AcquireProbe(ctx, key)
}

func (c *cutGates) RenewProbe(ctx context.Context, l fleet.Lease) (fleet.Lease, error) {
	if err := c.err(); err != nil {
		return l, err
	}
	return c.Gates.RenewProbe(ctx, l)
}

func (c *cutGates) ReleaseProbe(ctx context.Context, l fleet.Lease) error {
	if err := c.err(); err != nil {
		return err
	}
	return c.Gates.ReleaseProbe(ctx, l)
}

type fleetNode struct {
	h  *harness // svc, mgr, the shared clock and provider; no SQLite
	fg *cutGates
}

type fleetHarness struct {
	t     *testing.T
	db    *postgres.DB
	nodes []*fleetNode
}

func newFleetHarness(t *testing.T, n int, opts ...harnessOpt) *fleetHarness {
	t.Helper()
	base := newHarnessOnly(t)
	db, err := postgres.Open(base.ctx, pgtest.DSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	fh := &fleetHarness{t: t, db: db}
	for range n {
		h := &harness{t: t, ctx: base.ctx, clock: base.clock, dataDir: t.TempDir(), stateDir: base.stateDir}
		g, err := fleet.NewGates(db.Pool(), uuid.NewString(), time.Minute)
		require.NoError(t, err)
		node := &fleetNode{h: h, fg: &cutGates{Gates: g}}
		mgr, err := lifecycle.NewManager(lifecycle.Config{KillGrace: 2 * time.Second})
		require.NoError(t, err)
		cfg := Config{Store: db, Agents: LifecycleAgents(mgr), Profiles: h.profiles(), DataDir: h.dataDir,
			Clock: h.clock, Rand: func() float64 { return 0 }, SilenceNotice: -1, SilenceLimit: -1,
			FleetGates: node.fg, Metrics: NewMetrics(nil), Logger: fleetTestLogger(t)}
		for _, o := range opts {
			o(&cfg)
		}
		svc, err := New(cfg)
		require.NoError(t, err)
		h.svc, h.mgr = svc, mgr
		t.Cleanup(h.stop)
		require.NoError(t, svc.Start(h.ctx))
		fh.nodes = append(fh.nodes, node)
	}
	return fh
}

// newHarnessOnly is a harness's context, clock and provider, no service.
func newHarnessOnly(t *testing.T) *harness {
	h := &harness{t: t, stateDir: t.TempDir(), clock: quartz.NewMock(t).WithLogger(quietClock{})}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	h.ctx = ctx
	return h
}

// sync brings every live daemon in step with the fleet, in order.
func (fh *fleetHarness) sync(nodes ...*fleetNode) {
	fh.t.Helper()
	for _, n := range nodes {
		require.NoError(fh.t, n.h.svc.SyncFleetGates(n.h.ctx))
	}
}

func (n *fleetNode) gate(key string) GateInfo {
	g, _ := n.h.gateInfo(key)
	return g
}

// eventually waits (real time: database round trips and NOTIFYs, never a
// schedule) until cond holds.
func (fh *fleetHarness) eventually(what string, cond func() bool) {
	fh.t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			fh.t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (fh *fleetHarness) rows() []fleet.GateRow {
	fh.t.Helper()
	rows, err := fh.nodes[0].fg.Gates.List(fh.nodes[0].h.ctx)
	require.NoError(fh.t, err)
	return rows
}

func (n *fleetNode) probes() float64 {
	return gaugeValue(n.h.t, n.h.svc.cfg.Metrics.gateProbes.WithLabelValues("mock"))
}

func TestFleetGateOneProbeForTheFleetAndEveryDaemonReleases(t *testing.T) {
	fh := newFleetHarness(t, 2)
	a, b := fh.nodes[0], fh.nodes[1]
	t0 := a.h.clock.Now()
	gfA, gfB := a.h.gates(), b.h.gates()

	// Three sessions fail on A: its gate opens, the fleet's with it, and A
	// takes the probe right (its sessions wait).
	vs, fs, _ := a.h.openGate(3)
	fh.eventually("A probes for the fleet", func() bool { g := a.gate("mock"); return g.Fleet && g.Prober })
	rows := fh.rows()
	require.Len(t, rows, 1)
	assert.Equal(t, "mock", rows[0].Key)

	// B hears of it and follows: a session failing there waits at once,
	// not on its own 5s schedule, and B does not take the probe right.
	fh.eventually("B follows the fleet's gate", func() bool { return b.gate("mock").State == overload.Open })
	for i := range 2 {
		v, f, n := b.h.parkOne(10 + i)
		assert.Contains(t, n.Message.Text, "waiting for it to recover", "no threshold of its own: the fleet's gate is open")
		vs, fs = append(vs, v), append(fs, f)
	}
	fh.sync(b, a, b)
	assert.False(t, b.gate("mock").Prober, "one probe right for the fleet")
	assert.Equal(t, 2, b.gate("mock").Waiting)
	assert.Equal(t, 2, a.gate("mock").PeersWaiting, "A counts B's waiting sessions in its cadence")
	assert.Equal(t, 5, a.h.providerRequests(), "one request per session so far")

	// The first probe: exactly one reaches the provider, A's.
	a.h.advanceTo(t0.Add(5 * time.Second))
	g := gfA.until(probeFailed(1))
	assert.Equal(t, 6, a.h.providerRequests(), "one probe for the whole fleet")
	assert.Equal(t, 1.0, a.probes())
	assert.Equal(t, 0.0, b.probes())
	// 5 waiting in the fleet (3 on A, 2 on B): 10s ÷ 5.
	require.NotNil(t, g.NextProbeAt)
	assert.Equal(t, 2*time.Second, g.NextProbeAt.Sub(t0.Add(5*time.Second)))
	fh.eventually("B shows the fleet's next probe", func() bool {
		fh.sync(b)
		n := b.gate("mock").NextProbeAt
		return n != nil && n.Equal(*g.NextProbeAt)
	})
	for i := 3; i < 5; i++ {
		n := fs[i].until(func(n note) bool {
			return isNotice(n) && n.Message.Metadata["retry_at"] == g.NextProbeAt.UTC().Format(time.RFC3339Nano)
		})
		assert.Contains(t, n.Message.Text, "(5 sessions waiting)", "B's sessions see the fleet's count")
	}

	// The wall ends; A's next probe succeeds: the fleet's gate closes and
	// both daemons release their waiters.
	a.h.setWall(false)
	a.h.advanceTo(*g.NextProbeAt)
	gfA.until(isClosed)
	gfB.until(isClosed)
	assert.Empty(t, fh.rows(), "the fleet's gate is closed")
	a.h.advanceTo(a.h.clock.Now().Add(5 * time.Second)) // the release window
	for i, v := range vs {
		fs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
		msgs, err := fh.db.ListMessages(a.h.ctx, v.Sessions[0].ID)
		require.NoError(t, err)
		for _, m := range msgs {
			assert.NotEqual(t, "error", m.Variant, "no banner for session %d", i)
		}
		assert.Len(t, byRole(msgs, "user"), 1)
	}
	assert.Equal(t, 6+1+4, a.h.providerRequests(), "each session once more: the probe and four released")
	assert.Equal(t, 0.0, b.probes(), "B never probed")
}

func TestFleetGateProbeRightPassesWhenTheProberDies(t *testing.T) {
	fh := newFleetHarness(t, 2)
	a, b := fh.nodes[0], fh.nodes[1]
	t0 := a.h.clock.Now()
	gfA := a.h.gates()
	a.h.openGate(3)
	fh.eventually("A probes for the fleet", func() bool { return a.gate("mock").Prober })
	fh.eventually("B follows", func() bool { return b.gate("mock").State == overload.Open })
	_, fb, _ := b.h.parkOne(10)
	fh.sync(b, a)

	a.h.advanceTo(t0.Add(5 * time.Second))
	g := gfA.until(probeFailed(1))
	fh.eventually("the fleet's schedule is written", func() bool {
		fh.sync(a)
		r := fh.rows()
		return len(r) == 1 && r[0].FailedProbes == 1 && r[0].NextProbeAt.Equal(g.NextProbeAt.Truncate(time.Microsecond))
	})
	before := a.h.providerRequests()

	// A's machine goes away: it cannot give the right back, and its lease
	// runs out (the database's clock; here set to have passed).
	a.fg.cut.Store(true)
	a.h.stop()
	_, err := fh.db.Pool().Exec(a.h.ctx, `UPDATE fleet_leases SET expires_at = now() WHERE kind = $1`, fleet.GateLeaseKind)
	require.NoError(t, err)

	// B takes the right over with the fleet's schedule: no probe before it.
	fh.sync(b)
	gb := b.gate("mock")
	require.True(t, gb.Prober, "B probes now")
	require.NotNil(t, gb.NextProbeAt)
	assert.Equal(t, g.NextProbeAt.Truncate(time.Microsecond), *gb.NextProbeAt, "the schedule carries over")
	assert.Equal(t, 1, gb.FailedProbes)
	b.h.advanceTo(gb.NextProbeAt.Add(-time.Millisecond))
	assert.Equal(t, before, b.h.providerRequests(), "no probe before the fleet's next")

	b.h.setWall(false)
	b.h.advanceTo(*gb.NextProbeAt)
	fb.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	assert.Equal(t, 1.0, b.probes())
	fh.eventually("the fleet's gate closes", func() bool { return len(fh.rows()) == 0 })
}

func TestFleetGateClosesWhenNobodyInTheFleetWaits(t *testing.T) {
	fh := newFleetHarness(t, 2)
	a, b := fh.nodes[0], fh.nodes[1]
	vs, fs, _ := a.h.openGate(3)
	fh.eventually("B follows", func() bool { return b.gate("mock").State == overload.Open })
	vb, fb, _ := b.h.parkOne(10)
	fh.sync(b, a)
	cancel := func(h *harness, v TaskView, f *feed) {
		require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: v.Sessions[0].ID, Action: RecoverCancelRetry}))
		f.until(isBanner)
	}
	for i, v := range vs {
		cancel(a.h, v, fs[i])
	}
	fh.sync(a)
	assert.Len(t, fh.rows(), 1, "B's session still waits: the gate stays open")
	assert.Equal(t, overload.Open, a.gate("mock").State)
	fh.sync(b)
	assert.True(t, b.gate("mock").Prober, "the right goes to the daemon whose session waits")

	cancel(b.h, vb, fb)
	fh.sync(b)
	fh.eventually("the gate closes everywhere", func() bool {
		fh.sync(a, b)
		return len(fh.rows()) == 0 && a.gate("mock").State == overload.Closed && b.gate("mock").State == overload.Closed
	})
}

func fleetTestLogger(t *testing.T) *zap.Logger {
	if os.Getenv("FLEET_DEBUG") == "" {
		return zap.NewNop()
	}
	return zaptest.NewLogger(t)
}
