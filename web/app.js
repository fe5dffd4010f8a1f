// orchestratord minimal page: tasks, one session's chat, prompt and stop.
// No framework, no build step. Every piece of agent or user text is put in
// the page with textContent, never parsed as HTML.
'use strict';

(() => {
  const TOKEN_KEY = 'orchestratord.token';
  const params = new URLSearchParams(location.search);
  const token = params.get('token') || sessionStorage.getItem(TOKEN_KEY) || '';
  if (params.get('token')) sessionStorage.setItem(TOKEN_KEY, token);

  const $ = (id) => document.getElementById(id);
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };

  const ROLE_LABEL = { user: 'You', agent: 'Agent', thought: 'Thought', tool: 'Tool', status: 'Status' };
  const ACTIVE_STATES = new Set(['STARTING', 'RUNNING']);

  const state = {
    ws: null,
    nextId: 1,
    pending: new Map(), // request id → {resolve, reject}
    attempt: 0,         // consecutive failed connects, for backoff
    everConnected: false,
    tasks: new Map(),   // task id → TaskView
    view: null,         // the open session, see newView
  };

  class ApiError extends Error {
    constructor(code, message, details) {
      super(message);
      this.code = code;
      this.details = details;
    }
  }

  // ---- connection ----------------------------------------------------------

  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${scheme}//${location.host}/ws?token=${encodeURIComponent(token)}`);
    state.ws = ws;
    ws.onopen = () => {
      state.attempt = 0;
      state.everConnected = true;
      setConn('connected', true);
      hideNotice();
      onConnected();
    };
    ws.onmessage = (ev) => onFrame(ev.data);
    ws.onclose = (ev) => lost(ws, ev);
    // Browsers follow a failed connect's error with a close event; some
    // runtimes do not, so an error also counts (lost runs once per socket).
    ws.onerror = () => lost(ws, {});
  }

  function lost(ws, ev) {
    if (state.ws !== ws) return;
    state.ws = null;
    for (const p of state.pending.values()) p.reject(new ApiError('OFFLINE', 'connection lost'));
    state.pending.clear();
    if (state.view) state.view.live = false;
    if (ws.readyState !== WebSocket.CLOSED) ws.close();
    scheduleReconnect(ev);
  }

  function scheduleReconnect(ev) {
    const delay = Math.min(10000, 500 * 2 ** state.attempt) * (0.75 + Math.random() / 2);
    state.attempt = Math.min(state.attempt + 1, 6);
    const why = ev.reason ? `: ${ev.reason}` : '';
    setConn(`reconnecting…${why}`, false);
    if (!token) {
      showNotice('No access token. Open the URL printed by orchestratord (it ends with ?token=…).');
    } else if (!state.everConnected && state.attempt >= 3) {
      showNotice('Cannot connect. Is the daemon running, and is the token in the URL the current one?');
    }
    setTimeout(connect, delay);
  }

  function request(action, payload) {
    return new Promise((resolve, reject) => {
      const ws = state.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) {
        reject(new ApiError('OFFLINE', 'not connected; retrying'));
        return;
      }
      const id = `c${state.nextId++}`;
      state.pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, type: 'request', action, payload: payload || {} }));
    });
  }

  function onFrame(data) {
    let env;
    try { env = JSON.parse(data); } catch { return; }
    const payload = env.payload || {};
    if (env.type === 'response' || env.type === 'error') {
      const p = env.id ? state.pending.get(env.id) : undefined;
      if (p) state.pending.delete(env.id);
      if (env.type === 'response') {
        if (p) p.resolve(payload);
      } else {
        const err = new ApiError(payload.code, payload.message, payload.details);
        if (p) p.reject(err); else showError(err);
      }
      return;
    }
    if (env.type !== 'notification') return;
    if (env.action === 'task.updated') {
      if (payload.task) onTaskUpdated(payload.task);
    } else if (state.view && state.view.live) {
      applyEvent(state.view, env.action, payload);
    }
  }

  async function onConnected() {
    request('agent.list').then(({ agents }) => renderAgents(agents || [])).catch(showError);
    try {
      const { tasks } = await request('task.list');
      state.tasks = new Map((tasks || []).map((t) => [t.id, t]));
      renderTasks();
      if (state.view) await subscribe(state.view);
    } catch (err) {
      showError(err);
    }
  }

  // ---- tasks ---------------------------------------------------------------

  // time parses an RFC 3339 timestamp; unknown sorts first.
  function time(ts) {
    const t = ts ? Date.parse(ts) : NaN;
    return Number.isNaN(t) ? 0 : t;
  }

  function latestSession(task) {
    const sessions = task.sessions || [];
    return sessions.length ? sessions[sessions.length - 1] : null;
  }

  function onTaskUpdated(task) {
    const old = state.tasks.get(task.id);
    if (old && time(old.updated_at) > time(task.updated_at)) return; // a stale update
    state.tasks.set(task.id, task);
    renderTasks();
    const v = state.view;
    if (v && v.taskId === task.id) {
      const s = latestSession(task);
      if (s && s.id !== v.sessionId) openTask(task.id); // e.g. a fresh start made a new session
      else renderHead();
    }
  }

  function renderTasks() {
    const list = $('tasks');
    list.replaceChildren();
    const tasks = [...state.tasks.values()].sort((a, b) => time(b.created_at) - time(a.created_at));
    for (const t of tasks) {
      const li = el('li');
      const btn = el('button');
      btn.type = 'button';
      btn.append(el('span', 'task-title', t.title || t.id), el('span', `badge ${t.state}`, t.state));
      btn.setAttribute('aria-current', String(!!state.view && state.view.taskId === t.id));
      btn.addEventListener('click', () => openTask(t.id));
      li.append(btn);
      list.append(li);
    }
    $('tasks-empty').hidden = tasks.length > 0;
  }

  function renderAgents(agents) {
    const select = $('nt-agent');
    select.replaceChildren();
    for (const a of agents) {
      const opt = el('option', '', a.available ? a.name : `${a.name} (not installed)`);
      opt.value = a.name;
      if (a.default || (a.name === 'mock' && !agents.some((x) => x.default))) opt.selected = true;
      select.append(opt);
    }
  }

  $('new-task').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const submit = $('nt-submit');
    submit.disabled = true;
    try {
      const { task } = await request('task.create', {
        title: $('nt-title').value.trim(),
        prompt: $('nt-prompt').value,
        agent: $('nt-agent').value || 'mock',
      });
      state.tasks.set(task.id, task);
      $('nt-title').value = '';
      $('nt-prompt').value = '';
      renderTasks();
      openTask(task.id);
    } catch (err) {
      showError(err);
    } finally {
      submit.disabled = false;
    }
  });

  // ---- session view --------------------------------------------------------

  function newView(taskId, sessionId) {
    return {
      taskId, sessionId,
      state: '',
      lastSeq: 0,
      synced: false,      // true once a snapshot arrived: later subscribes send after_seq
      live: false,        // notifications are applied only after the subscribe response
      messages: new Map(), // id → message
      nodes: new Map(),    // id → {root, body}
    };
  }

  function openTask(taskId) {
    const task = state.tasks.get(taskId);
    const session = task && latestSession(task);
    if (!session) return;
    const old = state.view;
    if (old && old.sessionId === session.id) return;
    if (old) request('session.unsubscribe', { session_id: old.sessionId }).catch(() => {});
    state.view = newView(taskId, session.id);
    $('messages').replaceChildren();
    renderTasks();
    renderHead();
    subscribe(state.view).catch(showError);
  }

  async function subscribe(v) {
    const payload = { task_id: v.taskId, session_id: v.sessionId };
    if (v.synced) payload.after_seq = v.lastSeq;
    v.live = false;
    const res = await request('session.subscribe', payload);
    if (state.view !== v) return;
    if (res.session) v.state = res.session.state;
    // A snapshot replaces everything. (An empty one is omitted from the JSON;
    // a last_seq behind ours means the server's history is not the one we hold.)
    if (res.messages || (res.last_seq || 0) < v.lastSeq) {
      v.messages.clear();
      v.nodes.clear();
      $('messages').replaceChildren();
      for (const m of res.messages) upsertMessage(v, m);
      v.lastSeq = 0;
    }
    v.live = true;
    for (const n of res.events || []) applyEvent(v, n.action, n.payload || {});
    v.lastSeq = Math.max(v.lastSeq, res.last_seq || 0);
    v.synced = true;
    renderHead();
    scrollToEnd(true);
  }

  function applyEvent(v, action, p) {
    if (p.session_id && p.session_id !== v.sessionId) return;
    if (typeof p.seq === 'number') {
      if (p.seq <= v.lastSeq) return; // already seen (replay overlap)
      v.lastSeq = p.seq;
    }
    const stick = nearEnd();
    switch (action) {
      case 'session.message.added':
        if (p.message) upsertMessage(v, p.message);
        break;
      case 'session.message.updated':
        if (p.message) {
          upsertMessage(v, p.message);
        } else if (p.message_id && v.messages.has(p.message_id)) {
          const m = v.messages.get(p.message_id);
          m.text = (m.text || '') + (p.delta || '');
          renderMessage(v, m);
        }
        break;
      case 'session.message.deleted': {
        const node = v.nodes.get(p.message_id);
        if (node) node.root.remove();
        v.nodes.delete(p.message_id);
        v.messages.delete(p.message_id);
        break;
      }
      case 'session.state_changed':
        if (p.state) v.state = p.state;
        renderHead();
        break;
      case 'session.turn.started':
      case 'session.turn.completed':
        renderHead();
        break;
      default:
        break;
    }
    scrollToEnd(stick);
  }

  function upsertMessage(v, m) {
    v.messages.set(m.id, m);
    renderMessage(v, m);
  }

  // renderMessage (re)builds one message's node in seq order.
  function renderMessage(v, m) {
    let node = v.nodes.get(m.id);
    if (!node) {
      node = { root: el('article'), body: null };
      v.nodes.set(m.id, node);
      insertBySeq(node.root, m.seq || 0);
    }
    const root = node.root;
    root.className = `msg role-${m.role || 'agent'}${m.variant ? ` variant-${m.variant}` : ''}`;
    root.dataset.seq = String(m.seq || 0);
    root.replaceChildren();
    if (m.variant === 'warning' || m.variant === 'error') root.setAttribute('role', 'status');

    const body = el('div', 'msg-body', m.text || '');
    if (m.role === 'thought') {
      const details = el('details');
      details.append(el('summary', '', 'Thought'), body);
      root.append(details);
    } else {
      const head = el('div', 'msg-head', ROLE_LABEL[m.role] || m.role || '');
      const st = m.metadata && m.metadata.status;
      if (m.role === 'tool' && typeof st === 'string') head.append(el('span', 'badge', st));
      root.append(head, body);
    }
    if (Array.isArray(m.actions) && m.actions.length) {
      const bar = el('div', 'msg-actions');
      for (const a of m.actions) bar.append(actionButton(a));
      root.append(bar);
    }
    node.body = body;
  }

  function insertBySeq(node, seq) {
    const box = $('messages');
    for (const child of box.children) {
      if (Number(child.dataset.seq) > seq) { box.insertBefore(node, child); return; }
    }
    box.append(node);
  }

  function actionButton(a) {
    const btn = el('button', 'secondary', a.label || a.id || 'Action');
    btn.type = 'button';
    btn.addEventListener('click', async () => {
      if (a.type !== 'ws_request' || !a.action) return;
      btn.disabled = true;
      try {
        await request(a.action, a.payload || {});
      } catch (err) {
        showError(err);
        btn.disabled = false;
      }
    });
    return btn;
  }

  function renderHead() {
    const v = state.view;
    const task = v && state.tasks.get(v.taskId);
    $('chat-title').textContent = task ? (task.title || task.id) : 'Select or create a task';
    const badge = $('chat-state');
    badge.hidden = !v || !v.state;
    if (v) {
      badge.textContent = v.state;
      badge.className = `badge ${v.state}`;
    }
    $('stop').hidden = !v || !ACTIVE_STATES.has(v.state);
    $('prompt').disabled = !v;
    $('send').disabled = !v;
  }

  function nearEnd() {
    const box = $('messages');
    return box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  }

  function scrollToEnd(stick) {
    if (!stick) return;
    const box = $('messages');
    box.scrollTop = box.scrollHeight;
  }

  // ---- composer ------------------------------------------------------------

  async function sendPrompt() {
    const v = state.view;
    const box = $('prompt');
    const text = box.value;
    if (!v || !text.trim()) return;
    $('send').disabled = true;
    try {
      await request('session.prompt', { task_id: v.taskId, session_id: v.sessionId, text });
      box.value = '';
    } catch (err) {
      showError(err);
    } finally {
      $('send').disabled = !state.view;
    }
  }

  $('composer').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sendPrompt();
  });

  $('prompt').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      sendPrompt();
    }
  });

  $('stop').addEventListener('click', async () => {
    const v = state.view;
    if (!v) return;
    $('stop').disabled = true;
    try {
      await request('session.stop', { task_id: v.taskId, session_id: v.sessionId });
    } catch (err) {
      showError(err);
    } finally {
      $('stop').disabled = false;
    }
  });

  // ---- status and errors ---------------------------------------------------

  function setConn(text, ok) {
    const c = $('conn');
    c.textContent = text;
    c.className = `conn ${ok ? 'ok' : 'down'}`;
  }

  let noticeTimer = 0;
  function showNotice(text, ttl) {
    const n = $('notice');
    n.textContent = text;
    n.hidden = false;
    clearTimeout(noticeTimer);
    if (ttl) noticeTimer = setTimeout(hideNotice, ttl);
  }

  function hideNotice() { $('notice').hidden = true; }

  function showError(err) {
    if (err && err.code === 'OFFLINE') return; // the connection indicator says it
    const text = err && err.code ? `${err.code}: ${err.message}` : String(err);
    showNotice(text, 8000);
  }

  renderHead();
  connect();
})();
