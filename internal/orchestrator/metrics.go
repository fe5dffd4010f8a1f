package orchestrator

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the retry owner's Prometheus collectors.
type Metrics struct {
	failures       *prometheus.CounterVec
	retriesArmed   *prometheus.CounterVec
	outcomes       *prometheus.CounterVec
	retryDelay     prometheus.Histogram
	parkedSessions prometheus.Gauge
}

// Retry chain outcomes.
const (
	outcomeRecovered  = "recovered"
	outcomeExhausted  = "exhausted"
	outcomeCancelled  = "cancelled"
	outcomeSuperseded = "superseded"
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
	}
	if reg != nil {
		reg.MustRegister(m.failures, m.retriesArmed, m.outcomes, m.retryDelay, m.parkedSessions)
	}
	return m
}
