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
// # Protocol
//
// Every frame is a JSON envelope {"id"?, "type", "action", "payload", "ts"}.
// A client sends type "request" with a string id (optional but needed to
// match replies); the reply is type "response" or "error" with the same id
// and action. Error payloads are {code, message, details?}; details.field
// names the offending field of a VALIDATION_ERROR. A bad frame never closes
// the connection (except a frame beyond HardReadLimit).
//
//	task.create        {title?, prompt, agent?, workdir?, max_attempts?} → {task}
//	task.list          {limit?, cursor?}                                 → {tasks, next_cursor?}
//	task.get           {task_id}                                        → {task}
//	task.update        {task_id, title?, done?, archived?}              → {task}
//	task.delete        {task_id}                          → {task_id, workdir, workdir_removed}
//	session.subscribe  {session_id, task_id?, after_seq?} → {task, session, messages?|events?, last_seq}
//	session.unsubscribe {session_id}                     → {session_id, unsubscribed}
//	session.prompt     {session_id, task_id?, text}      → {session_id}
//	session.stop       {session_id, task_id?}            → {session_id}
//	session.recover    {task_id, session_id, action: cancel_retry|resume|fresh_start} → {session_id}
//	agent.list         {}                                → {agents}
//	gate.list          {}                                → {enabled, threshold, window_seconds, deadline_seconds, gates}
//	fleet.list         {live_only?}                      → {self_id, daemons}
//
// fleet.list's daemons are the daemons sharing this daemon's PostgreSQL
// database (on SQLite: just this one), live first, each {id, addr,
// hostname?, health: live|expired|stopped, self, load, max_agents,
// profiles, started_at, last_heartbeat, expires_at}; health is judged by
// the database's clock. load counts the daemon's live agent processes. An
// unreachable database is UNAVAILABLE.
//
// Notifications (type "notification", no id) carry the orchestrator's
// action and payload unchanged: task.updated, task.deleted ({task_id}) and
// gate.updated ({gate}) reach every connection; the
// session.* events of a subscribed session follow its subscribe response,
// each with a per-session seq > last_seq. Subscribing again to the same
// session on a connection replaces the old subscription.
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
