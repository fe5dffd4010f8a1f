// SessionModel is the client's copy of one session: its messages, its state
// and the seq of the last event applied. It has no DOM: it folds subscribe
// responses and notifications in and reports what changed, so a reconnect
// that replays from after_seq can never apply an event twice.

// QUEUED: the turn waits for an agent slot (--max-agents); Stop takes it out of line.
export const ACTIVE_STATES = new Set(['QUEUED', 'STARTING', 'RUNNING']);

/** Change says what a fold touched, for the views. */
export class Change {
  constructor() {
    this.reset = false; // everything may have changed (a snapshot)
    this.upserted = new Set(); // message ids added or changed
    this.deleted = new Set(); // message ids removed
    this.state = false; // session state or turn changed
  }

  get empty() {
    return !this.reset && !this.state && this.upserted.size === 0 && this.deleted.size === 0;
  }
}

/** noticeKind tells the pinned status messages apart from chat messages. */
export function noticeKind(m) {
  if (!m || m.role !== 'status' || !m.metadata) return '';
  const k = m.metadata.kind;
  return k === 'retry_notice' || k === 'recovery' ? k : '';
}

export class SessionModel {
  constructor(taskId, sessionId) {
    this.taskId = taskId;
    this.sessionId = sessionId;
    this.state = '';
    this.lastSeq = 0; // seq of the newest event applied
    this.synced = false; // a subscribe answered: later ones resume with after_seq
    this.live = false; // notifications apply only between a subscribe answer and the next loss
    this.mode = ''; // "snapshot" | "replay": how the last subscribe caught up
    this.messages = new Map(); // id → message
    // cursor of the next page of a large snapshot still to fetch with
    // session.page; '' once the snapshot is whole.
    this.cursor = '';
  }

  /** subscribePayload resumes after lastSeq once the model holds a whole snapshot. */
  subscribePayload() {
    const p = { task_id: this.taskId, session_id: this.sessionId };
    if (this.synced && !this.cursor) p.after_seq = this.lastSeq;
    return p;
  }

  /** pagePayload asks for the next page of the snapshot (null when whole). */
  pagePayload() {
    if (!this.cursor) return null;
    return { task_id: this.taskId, session_id: this.sessionId, cursor: this.cursor };
  }

  /** applySubscribe folds a session.subscribe answer in. */
  applySubscribe(res) {
    const ch = new Change();
    if (res.mode === 'replay') {
      for (const n of res.events || []) this.apply(n.action, n.payload || {}, ch, n.seq);
      this.cursor = '';
    } else {
      // A snapshot replaces everything (the server sends one when after_seq
      // is unknown to it, e.g. its history is not the one we hold).
      this.messages.clear();
      for (const m of res.messages || []) this.messages.set(m.id, { ...m });
      this.lastSeq = 0;
      this.cursor = res.next_cursor || ''; // more pages follow as session.page
      ch.reset = true;
    }
    this.lastSeq = Math.max(this.lastSeq, res.last_seq || 0);
    if (res.session && res.session.state) this.state = res.session.state;
    ch.state = true;
    this.mode = res.mode || 'snapshot';
    this.synced = true;
    this.live = true;
    return ch;
  }

  /**
   * apply folds one session event in; it reports false for an event of
   * another session or one already applied (seq <= lastSeq).
   */
  apply(action, p, ch, envelopeSeq) {
    if (p.session_id && p.session_id !== this.sessionId) return false;
    if (action === 'session.page') {
      // A page of the snapshot, as of the events already applied (it comes
      // in order with them): its messages replace our copies.
      for (const m of p.messages || []) {
        this.messages.set(m.id, { ...m });
        ch.upserted.add(m.id);
      }
      this.cursor = p.next_cursor || '';
      ch.state = true;
      return true;
    }
    const seq = typeof p.seq === 'number' ? p.seq : envelopeSeq;
    if (typeof seq === 'number') {
      if (seq <= this.lastSeq) return false;
      this.lastSeq = seq;
    }
    switch (action) {
      case 'session.message.added':
        if (p.message && p.message.id) {
          const m = { ...p.message };
          if (!m.seq) m.seq = seq || 0;
          this.messages.set(m.id, m);
          ch.upserted.add(m.id);
        }
        break;
      case 'session.message.updated':
        if (p.message && p.message.id) {
          // A replace keeps the message's place: the server keeps its seq.
          const old = this.messages.get(p.message.id);
          const m = { ...p.message };
          m.seq = (old && old.seq) || m.seq || seq || 0;
          if (old && !m.created_at) m.created_at = old.created_at;
          this.messages.set(m.id, m);
          ch.upserted.add(m.id);
        } else if (p.message_id) {
          const m = this.messages.get(p.message_id);
          if (m) {
            m.text = (m.text || '') + (p.delta || '');
            ch.upserted.add(m.id);
          }
        }
        break;
      case 'session.message.deleted':
        if (p.message_id && this.messages.delete(p.message_id)) {
          ch.upserted.delete(p.message_id);
          ch.deleted.add(p.message_id);
        }
        break;
      case 'session.state_changed':
        if (p.state) this.state = p.state;
        this.queuePosition = p.state === 'QUEUED' ? p.queue_position || 0 : 0;
        ch.state = true;
        break;
      case 'session.turn.started':
      case 'session.turn.completed':
        ch.state = true;
        break;
      default:
        break;
    }
    return true;
  }

  get active() {
    return ACTIVE_STATES.has(this.state);
  }

  /** latestNotice returns the newest pinned status message of a kind. */
  latestNotice(kind) {
    let best = null;
    for (const m of this.messages.values()) {
      if (noticeKind(m) === kind && (!best || (m.seq || 0) > (best.seq || 0))) best = m;
    }
    return best;
  }
}
