package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// spec is one run.
type spec struct {
	mode string // process | inprocess | fleet
	n    int    // sessions (fleet: per daemon)
	// daemons: fleet mode, how many orchestrators share one PostgreSQL
	// database (each its own Service, pool and in-process agents, as
	// separate daemons would be); 1 otherwise.
	daemons int
	pgURL   string // fleet mode: the database; empty starts a throwaway cluster
	scale   float64
	wall    time.Duration // unscaled
	gate    bool
	self    string // this executable, for process mode
	// probeEvery and release override the gate's probe cadence and release
	// window (unscaled); zero keeps the defaults.
	probeEvery, release time.Duration
	// pgStats: fleet mode, count the database's statements from the
	// wall's end to the last session back (pgstats.go).
	pgStats bool
}

func (s spec) selfOr(def string) string {
	if s.self != "" {
		return s.self
	}
	return def
}

// scaled turns simulated time into real time.
func (s spec) scaled(d time.Duration) time.Duration { return time.Duration(float64(d) * s.scale) }

// sim turns real time back into simulated seconds.
func (s spec) sim(d time.Duration) float64 { return d.Seconds() / s.scale }

// result is one row of the table.
type result struct {
	spec
	wallRequests   int     // provider requests during the wall
	wallRetries    int     // of which retries (not a session's first prompt)
	minRetryGap    float64 // smallest gap between two retries in the wall, simulated seconds; -1 if < 2 retries
	probes         float64
	banners        int
	replied        int
	reply          []float64 // per replied session: wall end → reply, simulated seconds
	closeToLast    float64   // gate closed → last reply, simulated seconds; -1 when unknown
	dupTurns       int
	lost           int
	elapsed        time.Duration
	createDuration time.Duration
	events         int64   // session events the orchestrator wrote: its own work
	detect         float64 // wall end → gate closed, simulated seconds; -1 when unknown
	probers        int     // daemons that sent probes
	perDaemon      []daemonResult
	pg             *pgStats // with -pgstats
}

// daemonResult is one daemon's part of a fleet run. Times are simulated
// seconds from the wall's end; -1 when unknown.
type daemonResult struct {
	probes, banners, replied int
	closed                   float64 // its gate closed (its first gate.updated closed after the wall)
	lastAnswer               float64 // the provider's last answer to one of its sessions
	lastReply                float64 // its last session back (task.updated)
}

// daemon is one orchestrator of a run.
type daemon struct {
	db  orchestrator.Store
	svc *orchestrator.Service
	sim *simAgents
	reg *prometheus.Registry
}

// outcome of one session, from task.updated.
type outcome struct {
	replied, banner bool
	at              time.Time
}

func simulate(ctx context.Context, sp spec, verbose bool) (result, error) {
	res := result{spec: sp, minRetryGap: -1, closeToLast: -1, detect: -1}
	started := time.Now()
	dir, err := os.MkdirTemp("", "overloadsim-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	dataDir := filepath.Join(dir, "data")
	stateDir := filepath.Join(dir, "mock")
	workdir := filepath.Join(dir, "work")
	if err := os.MkdirAll(workdir, 0o700); err != nil {
		return res, err
	}
	log := zap.NewNop()
	if verbose {
		log, _ = zap.NewDevelopment(zap.IncreaseLevel(zap.WarnLevel), zap.AddStacktrace(zap.DPanicLevel))
	}
	wallReal := sp.scaled(sp.wall)
	prov := &provider{latency: sp.scaled(500 * time.Millisecond), barrier: make(chan struct{})}
	var mgr *lifecycle.Manager
	profiles := map[string]lifecycle.Profile{}
	agentName := "sim"
	prompt := func(i int) string { return fmt.Sprintf("Task %d: fix the failing test in internal/store", i) }
	if sp.mode == "process" {
		agentName = "mock"
		profiles[agentName] = lifecycle.Profile{Name: agentName, Command: sp.self, Args: []string{"mock-agent"},
			Env: map[string]string{stateDirEnv: stateDir}}
		if mgr, err = lifecycle.NewManager(lifecycle.Config{Logger: log}); err != nil {
			return res, err
		}
		defer mgr.Close()
		prompt = func(i int) string { return fmt.Sprintf("/wall task %d: fix the failing test", i) }
	} else {
		profiles[agentName] = lifecycle.Profile{Name: agentName, Command: "in-process"}
	}
	k := max(sp.daemons, 1)
	total := sp.n * k
	ds := make([]*daemon, k)
	for i := range ds {
		d := &daemon{reg: prometheus.NewRegistry()}
		ds[i] = d
		dd := filepath.Join(dataDir, fmt.Sprint(i))
		var fg orchestrator.FleetGates
		if sp.mode == "fleet" {
			pg, err := postgres.Open(ctx, sp.pgURL)
			if err != nil {
				return res, err
			}
			defer pg.Close()
			gates, err := fleet.NewGates(pg.Pool(), uuid.NewString(), fleetTTL(sp))
			if err != nil {
				return res, err
			}
			d.db, fg = pg, gates
			if sp.pgStats && i == 0 {
				if err := enablePGStats(ctx, pg.Pool()); err != nil {
					return res, err
				}
			}
		} else {
			db, err := store.Open(ctx, dd)
			if err != nil {
				return res, err
			}
			defer db.Close()
			d.db = db
		}
		var agents orchestrator.Agents
		if mgr != nil {
			agents = orchestrator.LifecycleAgents(mgr)
		} else {
			d.sim = newSimAgents(prov)
			agents = d.sim
		}
		svc, err := orchestrator.New(orchestrator.Config{
			Store: d.db, Agents: agents, Profiles: profiles, DefaultAgent: agentName, DataDir: dd, Logger: log,
			Policy:   routingerr.PolicyConfig{Scale: sp.scale},
			Overload: sp.overloadConfig(),
			Metrics:  orchestrator.NewMetrics(d.reg), SubscriberBuffer: 1 << 16,
			FleetGates: fg, FleetGateSync: fleetSync(sp),
		})
		if err != nil {
			return res, err
		}
		d.svc = svc
	}
	closed := false
	closeSvc := func() {
		if !closed {
			closed = true
			var wg sync.WaitGroup
			for _, d := range ds {
				wg.Go(func() { _ = d.svc.Close() })
			}
			wg.Wait()
		}
	}
	defer closeSvc()
	for _, d := range ds {
		if err := d.svc.Start(ctx); err != nil {
			return res, err
		}
	}

	// Watch every task and gate from before the first prompt.
	var mu sync.Mutex // guards outcomes, closings, settled
	outcomes := make(map[string]outcome, total)
	var closings []time.Time // every gate.updated of a closed gate, any daemon
	closingsOf := make([][]time.Time, k)
	settled := 0
	allSettled := make(chan struct{})
	overflow := false
	var watch sync.WaitGroup
	watchFeed := func(di int, feed *orchestrator.Subscription) {
		for {
			select {
			case <-feed.Done():
				return
			case <-feed.Overflowed():
				mu.Lock()
				overflow = true
				mu.Unlock()
				return
			case n := <-feed.C():
				switch n.Action {
				case "gate.updated":
					var b struct{ Gate orchestrator.GateInfo }
					if json.Unmarshal(n.Payload, &b) == nil && b.Gate.State == overload.Closed {
						mu.Lock()
						closings = append(closings, n.At)
						closingsOf[di] = append(closingsOf[di], n.At)
						mu.Unlock()
					}
				case "task.updated":
					var b struct{ Task orchestrator.TaskView }
					if json.Unmarshal(n.Payload, &b) != nil || len(b.Task.Sessions) == 0 {
						continue
					}
					s := b.Task.Sessions[0]
					o := outcome{at: n.At}
					switch {
					case b.Task.State == store.TaskReview && s.State == store.SessionWaitingForInput:
						o.replied = true
					case s.State == store.SessionFailed:
						o.banner = true
					default:
						continue
					}
					mu.Lock()
					if _, seen := outcomes[s.ID]; !seen {
						outcomes[s.ID] = o
						settled++
						if settled == total {
							close(allSettled)
						}
					}
					mu.Unlock()
				}
			}
		}
	}
	var feeds []*orchestrator.Subscription
	closeFeeds := func() {
		for _, f := range feeds {
			f.Close()
		}
	}
	defer closeFeeds()
	for di, d := range ds {
		feed := d.svc.SubscribeTasks(total*16 + 4096)
		feeds = append(feeds, feed)
		watch.Go(func() { watchFeed(di, feed) })
	}

	// In process mode the wall starts now and lasts W after the last task
	// is created, so every first prompt lands in it. In process the first
	// prompts wait at the provider's barrier, and the wall starts when all
	// N sessions are running.
	t0 := time.Now()
	if sp.mode == "process" {
		prov.start = t0
		if err := mockagent.SetWall(stateDir, mockagent.Wall{Up: true}); err != nil {
			return res, err
		}
	}
	views := make([]orchestrator.TaskView, total)
	errs := make(chan error, 1)
	var create sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range total {
		sem <- struct{}{}
		create.Go(func() {
			defer func() { <-sem }()
			v, err := ds[i%k].svc.CreateTask(ctx, orchestrator.CreateTaskRequest{Prompt: prompt(i), Agent: agentName, Workdir: workdir})
			if err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
			views[i] = v
		})
	}
	create.Wait()
	res.createDuration = time.Since(t0)
	select {
	case err := <-errs:
		return res, fmt.Errorf("create task: %w", err)
	default:
	}
	if sp.mode == "process" {
		prov.end = time.Now().Add(wallReal)
		if err := mockagent.SetWall(stateDir, mockagent.Wall{Up: true, Until: prov.end}); err != nil {
			return res, err
		}
	} else {
		prov.start = time.Now()
		prov.end = prov.start.Add(wallReal)
		close(prov.barrier)
	}

	// Everyone settles (replies or shows the banner) well within the wall
	// plus the gate's deadline; give the release and the orchestrator's own
	// work a generous real-time margin on top.
	limit := wallReal + sp.scaled(overload.DefaultDeadline) + 60*time.Second
	var statsPool *pgxpool.Pool
	if pg, ok := ds[0].db.(*postgres.DB); ok && sp.pgStats {
		statsPool = pg.Pool()
		select {
		case <-allSettled:
		case <-time.After(time.Until(prov.end)):
		case <-ctx.Done():
			return res, ctx.Err()
		}
		if err := resetPGStats(ctx, statsPool); err != nil {
			return res, err
		}
	}
	select {
	case <-allSettled:
		if statsPool != nil {
			st, err := readPGStats(ctx, statsPool)
			if err != nil {
				return res, err
			}
			res.pg = &st
		}
	case <-time.After(time.Until(prov.end.Add(limit - wallReal))):
	case <-ctx.Done():
		return res, ctx.Err()
	}
	closeSvc()
	closeFeeds()
	watch.Wait()
	res.elapsed = time.Since(started)
	if overflow {
		return res, fmt.Errorf("the task feed overflowed; results would be incomplete")
	}

	// What reached the provider.
	var reqs []request
	if sp.mode == "process" {
		wr, err := mockagent.WallRequests(stateDir)
		if err != nil {
			return res, err
		}
		byTask := make(map[string]string, total)
		for _, v := range views {
			byTask[v.ID] = v.Sessions[0].ID
		}
		for _, r := range wr {
			reqs = append(reqs, request{at: r.At, session: byTask[r.Task], failed: r.Failed})
		}
	} else {
		reqs = prov.requests()
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].at.Before(reqs[j].at) })
	seen := make(map[string]bool, total)
	var retryTimes []time.Time
	for _, r := range reqs {
		first := !seen[r.session]
		seen[r.session] = true
		if r.at.Before(prov.start) || !r.at.Before(prov.end) {
			continue
		}
		res.wallRequests++
		if !first {
			res.wallRetries++
			retryTimes = append(retryTimes, r.at)
		}
	}
	for i := 1; i < len(retryTimes); i++ {
		gap := sp.sim(retryTimes[i].Sub(retryTimes[i-1]))
		if res.minRetryGap < 0 || gap < res.minRetryGap {
			res.minRetryGap = gap
		}
	}
	res.perDaemon = make([]daemonResult, k)
	for i, d := range ds {
		p := counter(d.reg, "orchestratord_overload_gate_probes_total")
		res.probes += p
		if p > 0 {
			res.probers++
		}
		res.perDaemon[i] = daemonResult{probes: int(p), closed: -1, lastAnswer: -1, lastReply: -1}
		for _, at := range closingsOf[i] {
			if c := sp.sim(at.Sub(prov.end)); c >= 0 && (res.perDaemon[i].closed < 0 || c < res.perDaemon[i].closed) {
				res.perDaemon[i].closed = c
			}
		}
	}
	daemonOf := make(map[string]int, total)
	for i, v := range views {
		daemonOf[v.Sessions[0].ID] = i % k
	}
	for _, r := range reqs {
		if pd := &res.perDaemon[daemonOf[r.session]]; !r.failed && !r.at.Before(prov.end) {
			pd.lastAnswer = max(pd.lastAnswer, sp.sim(r.at.Sub(prov.end)))
		}
	}
	db := ds[0].db // the fleet's database is one

	// Outcomes, lost prompts, duplicate user turns.
	var last time.Time
	for i, v := range views {
		sid := v.Sessions[0].ID
		o, ok := outcomes[sid]
		switch {
		case ok && o.replied:
			res.replied++
			res.reply = append(res.reply, sp.sim(o.at.Sub(prov.end)))
			if o.at.After(last) {
				last = o.at
			}
			pd := &res.perDaemon[i%k]
			pd.replied++
			pd.lastReply = max(pd.lastReply, sp.sim(o.at.Sub(prov.end)))
		case ok && o.banner:
			res.banners++
			res.perDaemon[i%k].banners++
		}
		msgs, err := db.ListMessages(ctx, sid)
		if err != nil {
			return res, err
		}
		users, resumable := 0, false
		for _, m := range msgs {
			if m.Role == "user" && m.Text == prompt(i) {
				users++
			}
			if m.Metadata["kind"] == "recovery" && len(m.Actions) > 0 {
				resumable = true
			}
		}
		if users != 1 || !(ok && o.replied) && !resumable {
			res.lost++
		}
		sess, err := db.GetSession(ctx, sid)
		if err != nil {
			return res, err
		}
		var held []string
		if sp.mode == "process" {
			if sess.AgentSessionID != "" {
				if held, err = mockagent.UserPrompts(stateDir, sess.AgentSessionID); err != nil {
					return res, err
				}
			}
		} else {
			held = ds[i%k].sim.userPrompts(sess.AgentSessionID)
		}
		copies := 0
		for _, p := range held {
			if p == prompt(i) {
				copies++
			}
		}
		if copies > 1 {
			res.dupTurns++
		}
	}
	sort.Float64s(res.reply)
	// The gate closed when the first daemon's closed after the wall: the
	// probe's (a gate also says "closed" as it starts counting failures).
	var gateClosed time.Time
	for _, at := range closings {
		if !at.Before(prov.end) && (gateClosed.IsZero() || at.Before(gateClosed)) {
			gateClosed = at
		}
	}
	if !gateClosed.IsZero() && !last.IsZero() {
		res.closeToLast = sp.sim(last.Sub(gateClosed))
		res.detect = sp.sim(gateClosed.Sub(prov.end))
	}
	all, err := db.ListAllSessions(ctx)
	if err != nil {
		return res, err
	}
	for _, s := range all {
		res.events += s.LastSeq
	}
	return res, nil
}

// counter sums a counter family's samples.
func counter(reg *prometheus.Registry, name string) float64 {
	mfs, err := reg.Gather()
	if err != nil {
		return -1
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			total += m.GetCounter().GetValue()
		}
	}
	return total
}

func (s spec) overloadConfig() overload.Config {
	c := overload.Config{Scale: s.scale, Disabled: !s.gate, ReleaseWindow: s.release}
	if s.probeEvery > 0 {
		c.FirstProbe, c.Backoff, c.MinProbeInterval = s.probeEvery, []time.Duration{s.probeEvery}, s.probeEvery
	}
	return c
}

// fleetSync is the fleet gates' sync period of a run: 1s, scaled like the
// gate's own intervals, but at least 50ms (the database's round trips are
// real time).
func fleetSync(sp spec) time.Duration {
	return max(sp.scaled(time.Second), 50*time.Millisecond)
}

// fleetTTL is the probe right's lease: 20 syncs.
func fleetTTL(sp spec) time.Duration { return 20 * fleetSync(sp) }
