// ChatView draws a SessionModel's chat messages into the log: user and agent
// bubbles (agent text as safe Markdown), collapsed thoughts, compact tool
// cards, plans and short system notes. Retry notices and recovery banners are
// not drawn here; StatusView pins them above the prompt box.

import { el, replaceWith } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { noticeKind } from './session.js';
import { isUsage, isDivider, turnUsageText } from './usage.js';

const TOOL_ICONS = {
  read: '📄', edit: '✏️', delete: '🗑️', move: '📦', search: '🔍', execute: '▶️',
  think: '💭', fetch: '🌐', switch_mode: '🔀', other: '🔧',
};
const PERMISSION_TEXT = { allowed: 'allowed', rejected: 'rejected', cancelled: 'not answered (no option matched the policy)' };
const TOOL_STATUS = { pending: 'pending', in_progress: 'running', completed: 'done', failed: 'failed' };

export class ChatView {
  /** @param {HTMLElement} box the scrolling log */
  constructor(box) {
    this.box = box;
    this.nodes = new Map(); // message id → {root, key, body?}
    this.dirty = new Set();
    this.model = null;
    this.flushQueued = false;
  }

  /** show starts drawing model (null: nothing). */
  show(model) {
    this.model = model;
    this.box.replaceChildren();
    this.nodes.clear();
    this.dirty.clear();
    if (model) this.renderAll();
  }

  /** update draws a Change: a reset at once, streamed text once per frame. */
  update(model, ch) {
    if (model !== this.model) return;
    if (ch.reset) {
      const stick = this.nearEnd();
      this.box.replaceChildren();
      this.nodes.clear();
      this.dirty.clear();
      this.renderAll();
      this.scroll(stick);
      return;
    }
    for (const id of ch.deleted) {
      const n = this.nodes.get(id);
      if (n) n.root.remove();
      this.nodes.delete(id);
      this.dirty.delete(id);
    }
    for (const id of ch.upserted) this.dirty.add(id);
    if (this.dirty.size) this.queueFlush();
  }

  renderAll() {
    const msgs = [...this.model.messages.values()].sort((a, b) => (a.seq || 0) - (b.seq || 0));
    for (const m of msgs) this.renderOne(m);
  }

  // Streaming sends many small deltas: draw them once per animation frame
  // (with a timer as a fallback for tabs that get no frames).
  queueFlush() {
    if (this.flushQueued) return;
    this.flushQueued = true;
    const run = () => this.flush();
    requestAnimationFrame(run);
    setTimeout(run, 100);
  }

  flush() {
    if (!this.flushQueued) return;
    this.flushQueued = false;
    if (!this.model) return;
    const stick = this.nearEnd();
    for (const id of this.dirty) {
      const m = this.model.messages.get(id);
      if (m) this.renderOne(m);
    }
    this.dirty.clear();
    this.scroll(stick);
  }

  renderOne(m) {
    if (noticeKind(m)) {
      // Pinned elsewhere; drop a stale inline node if the kind changed.
      const old = this.nodes.get(m.id);
      if (old) old.root.remove();
      this.nodes.delete(m.id);
      return;
    }
    const key = `${m.role}|${m.variant || ''}|${m.text}|${JSON.stringify(m.metadata || {})}|${JSON.stringify(m.actions || [])}`;
    let n = this.nodes.get(m.id);
    if (n && n.key === key) return;
    const root = n && n.role === m.role ? n.root : this.createRoot(m);
    if (n && n.root !== root) n.root.replaceWith(root);
    if (!n || n.root !== root) {
      n = { root, role: m.role, key: '' };
      this.nodes.set(m.id, n);
      if (!root.isConnected) this.insertBySeq(root, m.seq || 0);
    }
    n.key = key;
    this.fill(root, m);
  }

  createRoot(m) {
    const role = m.role || 'agent';
    const root = role === 'thought'
      ? el('details', { class: 'msg msg-thought' })
      : el('article', { class: `msg msg-${role}` });
    root.dataset.id = m.id;
    root.dataset.role = role;
    root.dataset.seq = String(m.seq || 0);
    return root;
  }

  // fill (re)draws a message's content inside its existing root, so a
  // thought the user opened stays open while it streams.
  fill(root, m) {
    switch (m.role) {
      case 'user':
        root.replaceChildren(head('You', m), el('div', { class: 'msg-body plain', text: m.text || '' }));
        break;
      case 'thought': {
        const summary = el('summary', {}, el('span', { class: 'msg-who', text: 'Thinking' }),
          el('span', { class: 'thought-preview', text: preview(m.text) }));
        const body = el('div', { class: 'msg-body md' }, renderMarkdown(m.text));
        root.replaceChildren(summary, body);
        break;
      }
      case 'tool': {
        const md = m.metadata || {};
        const kind = typeof md.tool_kind === 'string' ? md.tool_kind : 'other';
        const status = typeof md.status === 'string' ? md.status : '';
        // A section the user opened stays open as the card updates.
        const open = new Set([...root.querySelectorAll('details[open]')].map((d) => d.dataset.part));
        root.className = `msg msg-tool${status ? ` tool-${status}` : ''}`;
        let permission = null;
        if (typeof md.permission === 'string' && md.permission) {
          const answer = PERMISSION_TEXT[md.permission] || md.permission;
          permission = el('p', { class: `tool-permission ${md.permission}`, dataset: { answer: md.permission } },
            'Asked for permission: ', el('strong', { text: answer }),
            md.permission_option ? ` (“${md.permission_option}”)` : '',
            md.permission === 'cancelled' ? '' : ' by the agent profile\'s policy');
        }
        const io = (part, label, text) => {
          if (typeof text !== 'string' || !text) return null;
          const d = el('details', { class: 'tool-io', dataset: { part } },
            el('summary', { text: label }), el('pre', { class: 'tool-pre', text }));
          if (open.has(part)) d.open = true;
          return d;
        };
        replaceWith(root,
          el('div', { class: 'tool-head' },
            el('span', { class: 'tool-icon', 'aria-hidden': 'true', text: TOOL_ICONS[kind] || TOOL_ICONS.other }),
            el('span', { class: 'tool-title', text: m.text || 'Tool call' }),
            el('span', { class: 'tool-kind', text: kind }),
            status ? el('span', { class: `tool-status ${status}`, text: TOOL_STATUS[status] || status }) : null),
          permission,
          io('input', 'Input', md.input),
          io('output', 'Output', md.output),
        );
        root.setAttribute('aria-label', `Tool call: ${m.text || ''}${status ? `, ${TOOL_STATUS[status] || status}` : ''}`);
        break;
      }
      case 'plan':
        root.replaceChildren(head('Plan', m), el('div', { class: 'msg-body md' }, renderMarkdown(m.text)));
        break;
      case 'status':
        if (isUsage(m)) { // quiet: one small line under the turn
          root.className = 'msg msg-usage';
          root.replaceChildren(el('div', { class: 'msg-body plain', text: turnUsageText(m) || m.text || '' }));
          break;
        }
        if (isDivider(m)) { // Start fresh: what is above is an earlier agent session
          root.className = 'msg msg-divider';
          root.setAttribute('role', 'separator');
          root.setAttribute('aria-label', m.text || 'Started fresh');
          root.replaceChildren(el('span', { class: 'divider-text', text: m.text || 'Started fresh' }));
          break;
        }
        root.className = `msg msg-status${m.variant ? ` variant-${m.variant}` : ''}`;
        root.replaceChildren(el('div', { class: 'msg-body plain', text: m.text || '' }));
        break;
      default: {
        // A failed attempt's partial reply: kept, but marked, so one reply reads as one.
        const md = m.metadata || {};
        const cut = md.interrupted === true;
        const stopped = md.stopped === true && !cut;
        const retries = Number(md.retries) || 0;
        root.classList.toggle('interrupted', cut);
        root.classList.toggle('stopped', stopped);
        replaceWith(root, head('Agent', m), el('div', { class: 'msg-body md' }, renderMarkdown(m.text)),
          cut ? el('div', { class: 'msg-interrupted', text: 'Interrupted: this attempt failed before it finished.' }) : null,
          stopped ? el('div', { class: 'msg-stopped', text: 'Stopped: you stopped this reply before it finished.' }) : null,
          retries > 0 && !cut && !stopped
            ? el('div', { class: 'msg-recovered', text: `Recovered after ${retries} ${retries === 1 ? 'retry' : 'retries'}.` }) : null);
      }
    }
  }

  insertBySeq(node, seq) {
    // New messages almost always go last: scan from the end.
    let before = null;
    for (let c = this.box.lastElementChild; c; c = c.previousElementSibling) {
      if (Number(c.dataset.seq) > seq) before = c;
      else break;
    }
    this.box.insertBefore(node, before);
  }

  nearEnd() {
    const b = this.box;
    return b.scrollHeight - b.scrollTop - b.clientHeight < 48;
  }

  scroll(stick) {
    if (stick) this.box.scrollTop = this.box.scrollHeight;
  }
}

function head(who, m) {
  const h = el('div', { class: 'msg-head' }, el('span', { class: 'msg-who', text: who }));
  const at = m.created_at ? new Date(m.created_at) : null;
  if (at && !Number.isNaN(at.getTime())) {
    h.append(el('time', { datetime: m.created_at, text: at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) }));
  }
  return h;
}

function preview(text) {
  const line = String(text || '').trim().split('\n')[0];
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
