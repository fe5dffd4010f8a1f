package orchestrator

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the retry owner's and the overload gates' Prometheus collectors.
type Metrics struct {
	failures       *prometheus.CounterVec
	retriesArmed   *prometheus.CounterVec
	outcomes       *prometheus.CounterVec
	retryDelay     prometheus.Histogram
	parkedSessions prometheus.Gauge

	// Overload gates, by gate key (agent profile).
	gateOpen    *prometheus.GaugeVec
	gateWaiting *prometheus.GaugeVec
	gateProbes  *prometheus.CounterVec
	gateHung    *prometheus.CounterVec
	gateRelease prometheus.Histogram

	// Fallback profiles (fallback.go): switches by direction.
	fallbacks *prometheus.CounterVec
}

// Retry chain outcomes.
const (
	outcomeRecovered  = "recovered"
	outcomeExhausted  = "exhausted"
	outcomeCancelled  = "cancelled"
	outcomeSuperseded = "superseded"
	outcomeDeadline   = "deadline" // waited on an overload gate past the deadline
	outcomeFallback   = "fallback" // waited past the deadline, then went on on a fallback profile
)

// NewMetrics creates the collectors and registers them on reg (nil: not registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orchestratord_agent_failures_total",
			Help: "Failed agent turns by routing code and class.",
		}, []string{"routing_code", "class"}),
		retriesArmed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orchestratord_retries_scheduled_total",
			Help: "Automatic retries scheduled, by routing code.",
		}, []string{"routing_code"}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orchestratord_retry_outcomes_total",
			Help: "How retry chains ended: recovered, exhausted, cancelled, superseded.",
		}, []string{"outcome"}),
		retryDelay: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "orchestratord_retry_delay_seconds",
			Help:    "Delay of scheduled retries.",
			Buckets: []float64{0, 1, 2, 5, 10, 15, 30, 60, 120, 300, 900},
		}),
		parkedSessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "orchestratord_parked_sessions",
			Help: "Sessions waiting for an automatic retry.",
		}),
		gateOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "orchestratord_overload_gate_open",
			Help: "1 while the provider overload gate of a key is open, else 0.",
		}, []string{"gate"}),
		gateWaiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "orchestratord_overload_gate_waiting_sessions",
			Help: "Sessions waiting on the overload gate of a key (its probe not included).",
		}, []string{"gate"}),
		gateProbes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orchestratord_overload_gate_probes_total",
			Help: "Probes sent by overload gates.",
		}, []string{"gate"}),
		gateHung: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orchestratord_overload_gate_probe_timeouts_total",
			Help: "Probes that gave no answer within the probe timeout and gave up the slot.",
		}, []string{"gate"}),
		gateRelease: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "orchestratord_overload_gate_release_seconds",
			Help:    "Time from a session starting to wait on an overload gate to its release.",
			Buckets: []float64{1, 5, 10, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600},
		}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orchestratord_fallback_switches_total",
			Help: "Sessions moved to a fallback profile after a long overload (direction fallback), and back (direction back).",
		}, []string{"from", "to", "direction"}),
	}
	if reg != nil {
		reg.MustRegister(m.failures, m.retriesArmed, m.outcomes, m.retryDelay, m.parkedSessions,
			m.gateOpen, m.gateWaiting, m.gateProbes, m.gateHung, m.gateRelease, m.fallbacks)
	}
	return m
}
