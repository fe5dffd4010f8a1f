// The WebSocket client: envelopes, request/response matching, and a
// connection that comes back by itself (exponential backoff with jitter).
// What to do after a (re)connect — resubscribe from the last seq — is the
// caller's business, through onOpen.

export class ApiError extends Error {
  constructor(code, message, details) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

const BACKOFF_BASE_MS = 400;
const BACKOFF_MAX_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
// A socket whose peer vanished without a FIN looks open for minutes; a cheap
// request now and then finds out.
const HEARTBEAT_MS = 25_000;
const HEARTBEAT_TIMEOUT_MS = 10_000;
// Clock skew below this is noise (and tabs on one machine must agree).
const SKEW_THRESHOLD_MS = 2_000;

export class Connection {
  /**
   * @param {object} o
   * @param {string} o.url            ws(s)://…/ws?token=…
   * @param {() => void} o.onOpen     after every successful (re)connect
   * @param {(action: string, payload: object) => void} o.onNotification
   * @param {(status: {state: string, attempt: number, retryInMs?: number, reason?: string}) => void} o.onStatus
   */
  constructor({ url, onOpen, onNotification, onStatus }) {
    this.url = url;
    this.onOpen = onOpen;
    this.onNotification = onNotification;
    this.onStatus = onStatus;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // request id → {resolve, reject, timer}
    this.attempt = 0; // failed connects since the last open
    this.everOpen = false;
    this.retryTimer = 0;
    this.heartbeat = 0;
    this.skewSamples = []; // server ts − local receive time, per response
  }

  start() {
    this.connect();
    const kick = () => { if (!this.ws && this.retryTimer) this.reconnectNow(); };
    window.addEventListener('online', kick);
    document.addEventListener('visibilitychange', () => { if (!document.hidden) kick(); });
  }

  get open() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /** skewMs is how far the server's clock runs ahead of ours (0 when close). */
  get skewMs() {
    if (!this.skewSamples.length) return 0;
    const s = Math.max(...this.skewSamples); // the least delayed sample
    return Math.abs(s) > SKEW_THRESHOLD_MS ? s : 0;
  }

  connect() {
    this.retryTimer = 0;
    if (this.stopped) return;
    this.status('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect('');
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.everOpen = true;
      this.skewSamples = [];
      this.status('open');
      this.startHeartbeat();
      this.onOpen();
    };
    ws.onmessage = (ev) => { if (this.ws === ws) this.onFrame(ev.data); };
    ws.onclose = (ev) => this.lost(ws, ev.reason || '');
    // Some runtimes report a failed connect only as an error.
    ws.onerror = () => this.lost(ws, '');
  }

  lost(ws, reason) {
    if (this.ws !== ws) return;
    this.ws = null;
    clearInterval(this.heartbeat);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      // Sent, but the outcome is unknown: not the same as never sent.
      p.reject(new ApiError('LOST', 'The connection dropped before the daemon answered.'));
    }
    this.pending.clear();
    if (ws.readyState !== WebSocket.CLOSED && ws.readyState !== WebSocket.CLOSING) ws.close();
    this.scheduleReconnect(reason);
  }

  scheduleReconnect(reason) {
    if (this.stopped) return;
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.attempt);
    const delay = Math.round(ceiling * (0.5 + Math.random() / 2));
    this.attempt = Math.min(this.attempt + 1, 10);
    this.retryTimer = setTimeout(() => this.connect(), delay);
    this.status('reconnecting', { retryInMs: delay, reason });
  }

  /** stop gives up: no reconnect (a token the daemon refuses will not work later). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = 0;
    clearInterval(this.heartbeat);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
  }

  reconnectNow() {
    clearTimeout(this.retryTimer);
    this.connect();
  }

  status(state, extra) {
    this.onStatus({ state, attempt: this.attempt, everOpen: this.everOpen, ...extra });
  }

  startHeartbeat() {
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      if (document.hidden || !this.open) return;
      const ws = this.ws;
      this.request('agent.list', {}, HEARTBEAT_TIMEOUT_MS).catch((err) => {
        if (err.code === 'TIMEOUT' && this.ws === ws) this.lost(ws, 'no answer from the daemon');
      });
    }, HEARTBEAT_MS);
  }

  /**
   * request sends one request. It rejects with an ApiError: the daemon's
   * code, OFFLINE (not sent: no connection), LOST (sent, but the connection
   * dropped before an answer) or TIMEOUT.
   */
  request(action, payload, timeoutMs = REQUEST_TIMEOUT_MS) {
    return new Promise((resolve, reject) => {
      if (!this.open) {
        reject(new ApiError('OFFLINE', 'Not connected to the daemon; reconnecting.'));
        return;
      }
      const id = `c${this.nextId++}`;
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) reject(new ApiError('TIMEOUT', `The daemon did not answer ${action}.`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ id, type: 'request', action, payload: payload || {} }));
    });
  }

  onFrame(data) {
    let env;
    try {
      env = JSON.parse(data);
    } catch {
      return;
    }
    if (!env || typeof env !== 'object') return;
    const payload = env.payload || {};
    if (env.type === 'response' || env.type === 'error') {
      const at = Date.parse(env.ts);
      if (!Number.isNaN(at)) {
        this.skewSamples.push(at - Date.now());
        if (this.skewSamples.length > 8) this.skewSamples.shift();
      }
      const p = env.id ? this.pending.get(env.id) : undefined;
      if (!p) return;
      this.pending.delete(env.id);
      clearTimeout(p.timer);
      if (env.type === 'response') p.resolve(payload);
      else p.reject(new ApiError(payload.code || 'ERROR', payload.message || 'request failed', payload.details));
      return;
    }
    if (env.type === 'notification' && typeof env.action === 'string') {
      this.onNotification(env.action, payload);
    }
  }
}
