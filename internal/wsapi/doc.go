// Package wsapi is the daemon's WebSocket endpoint (DESIGN §5): token auth
// and Origin check on the upgrade, the JSON envelope, request routing to the
// orchestrator, per-connection subscriptions and back-pressure. It also
// serves /healthz and the embedded web page.
//
// It owns sockets and nothing else: every state change goes through an
// orchestrator call (the Service interface declared here), and it never
// looks inside orchestrator errors beyond errors.Is on the sentinels.
//
// # Connection model
//
// Each connection has three goroutines owned by the Server — a reader that
// handles requests one at a time (so responses keep request order), a
// single writer fed by a bounded queue, and a supervisor that performs the
// close handshake — plus one forwarder per subscription (task.updated, and
// each session.subscribe) that copies notifications into the queue.
// Publishing never blocks: when the queue or an orchestrator subscription
// overflows, the connection is closed with StatusPolicyViolation (1008) and
// a reason telling the client to reconnect and resubscribe with after_seq.
// Every write has a timeout.
//
// # Frame sizes
//
// A text frame up to Config.ReadLimit is handled. A larger one, up to
// Config.HardReadLimit (16×ReadLimit by default), is drained and answered
// with BAD_REQUEST; the connection stays open. Beyond HardReadLimit the
// websocket library closes the connection with StatusMessageTooBig (1009),
// because draining an unbounded frame would let a client make us read
// forever.
package wsapi
