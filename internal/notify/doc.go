// Package notify tells a person who walked away that a task needs them,
// finished, or waits on a usage window: one JSON POST (or a templated body,
// for Slack, ntfy and the like) per event to each configured webhook.
//
// It owns delivery — a bounded queue per webhook that drops its oldest
// event when full (counted and logged), retries with backoff on the
// injected clock, a timeout on every request, and secrets sanitised out of
// every field before it leaves the machine. It never blocks its caller and
// never imports the orchestrator: the daemon's wiring feeds it Events.
package notify
