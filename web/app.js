// orchestratord's chat page: wiring of the connection, the task list, the open
// session's chat and its pinned retry card / recovery banner. No framework, no
// build step: plain ES modules served from the binary. All text reaches the
// page through text nodes (see dom.js and markdown.js).

import { $, el } from './dom.js';
import { Connection } from './conn.js';
import { SessionModel, Change } from './session.js';
import { ChatView } from './chat.js';
import { StatusView } from './status.js';
import { TaskList, latestSession, badgeFor, modelSource } from './tasks.js';
import { GatePanel } from './gates.js';
import { TaskAlerts } from './alerts.js';
import { TaskManager } from './manage.js';
import { installShortcuts } from './keys.js';
import { usageLine, usageTotal } from './usage.js';
import { FleetPanel } from './fleet.js';

const TOKEN_KEY = 'orchestratord.token';
const DRAFT_KEY = 'orchestratord.draft.';
const QUEUE_KEY = 'orchestratord.queued.';
const narrow = window.matchMedia('(max-width: 760px)');

// ---- token: from ?token=, kept in the URL so a reload works -------------------

const url = new URL(location.href);
const token = url.searchParams.get('token') || sessionStorage.getItem(TOKEN_KEY) || '';
if (token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  if (!url.searchParams.get('token')) {
    url.searchParams.set('token', token);
    history.replaceState(null, '', url);
  }
}

// ---- state ----------------------------------------------------------------

const state = {
  tasks: new Map(), // task id → TaskView
  model: null, // the open session (SessionModel)
  sending: false,
  offline: false, // the connection is down after having been up
  tokenRefused: false,
  agents: [], // agent.list
  listed: false, // the first task.list has answered
};

const conn = new Connection({
  url: `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws?token=${encodeURIComponent(token)}`,
  onOpen: onConnected,
  onNotification,
  onStatus: showConnection,
});

const chat = new ChatView($('messages'));
const status = new StatusView({
  card: $('retry-card'),
  banner: $('recovery-banner'),
  onAction: runAction,
  now: () => Date.now() + conn.skewMs,
});
const taskList = new TaskList($('tasks'), $('tasks-empty'), (id) => openTask(id, { fromList: true }));
const alerts = new TaskAlerts({ onOpen: (id) => openTask(id, { fromList: true }) });
const manager = new TaskManager({
  conn,
  current: () => (state.model ? state.tasks.get(state.model.taskId) || null : null),
  onUpdated: (task) => onTaskUpdated(task),
  onDeleted: (id) => onTaskDeleted(id),
  describe: (err) => describe(err),
});
const gates = new GatePanel({
  region: $('gates'),
  list: $('gates-list'),
  announce: $('gates-announce'),
  now: () => Date.now() + conn.skewMs,
  fetch: async () => {
    const res = await conn.request('gate.list', {});
    showGateDefault(res);
    return res;
  },
});

// ---- connection -------------------------------------------------------------

function showConnection(s) {
  const c = $('conn');
  let text = 'connected';
  if (state.tokenRefused) return;
  if (s.state !== 'open') {
    text = s.everOpen ? 'reconnecting…' : 'connecting…';
    if (state.model) state.model.live = false;
  }
  c.textContent = text;
  c.dataset.state = s.state === 'open' ? 'ok' : 'down';
  const offline = s.state !== 'open' && s.everOpen;
  if (offline !== state.offline) {
    state.offline = offline;
    status.setOffline(offline);
    renderHead();
  }
  if (s.state === 'open') {
    hideNotice();
  } else if (!token) {
    showNotice('No access token. Open the URL that orchestratord printed (it ends with ?token=…).');
  } else {
    if (s.state === 'reconnecting') checkToken();
    if (!s.everOpen && s.attempt >= 3) {
      showNotice('Cannot reach the daemon. Is it running? This page keeps trying and connects as soon as it is up.');
    }
  }
}

// checkToken asks the daemon over plain HTTP whether it refuses the token: a
// WebSocket that fails tells the page nothing about why. A refused token is
// said once, and the page stops retrying with it.
let tokenCheck = null;
function checkToken() {
  if (tokenCheck || state.tokenRefused) return;
  tokenCheck = fetch(`/ws?token=${encodeURIComponent(token)}`, { cache: 'no-store' })
    .then((res) => {
      if (res.status !== 401) return;
      state.tokenRefused = true;
      conn.stop();
      const c = $('conn');
      c.textContent = 'token refused';
      c.dataset.state = 'refused';
      showNotice('The daemon refused the access token in this URL. Open the URL orchestratord printed when it started (a restart with a new token makes old URLs stop working).');
    })
    .catch(() => {}) // unreachable: the reconnect goes on
    .finally(() => { tokenCheck = null; });
}

async function onConnected() {
  // How long the first connect took, for the load-time test (performance marks are free).
  if (!performance.getEntriesByName('orchestratord:connected').length) performance.mark('orchestratord:connected');
  conn.request('agent.list').then(({ agents }) => { state.agents = agents || []; renderAgents(state.agents); renderHead(); }).catch(showError);
  gates.refresh().catch(showError);
  try {
    const tasks = await listAllTasks();
    state.tasks = new Map(tasks.map((t) => [t.id, t]));
    for (const t of tasks) alerts.update(t); // what changed while disconnected
    if (!state.listed) foldForm(state.tasks.size > 0); // once tasks exist, the list comes first
    state.listed = true;
    renderTasks();
    if (state.model) {
      const task = state.tasks.get(state.model.taskId);
      const s = latestSession(task);
      if (s && s.id !== state.model.sessionId) openTask(task.id, { force: true });
      else await subscribe(state.model);
    } else {
      const wanted = taskFromHash();
      if (wanted && state.tasks.has(wanted)) openTask(wanted);
    }
  } catch (err) {
    showError(err);
  }
}

// listAllTasks pages through task.list (newest first, TASK_PAGE at a time) so
// that no single answer grows with the number of tasks.
const TASK_PAGE = 500;
async function listAllTasks() {
  const all = [];
  let cursor = '';
  for (;;) {
    const page = await conn.request('task.list', cursor ? { limit: TASK_PAGE, cursor } : { limit: TASK_PAGE });
    all.push(...(page.tasks || []));
    if (!page.next_cursor) return all;
    cursor = page.next_cursor;
  }
}

function onNotification(action, payload) {
  if (action === 'task.updated') {
    if (payload.task) onTaskUpdated(payload.task);
    return;
  }
  if (action === 'task.deleted') {
    if (payload.task_id) onTaskDeleted(payload.task_id);
    return;
  }
  if (action === 'gate.updated') {
    gates.update(payload.gate);
    return;
  }
  const m = state.model;
  if (!m || !m.live || !action.startsWith('session.')) return;
  const ch = new Change();
  if (m.apply(action, payload, ch)) draw(m, ch);
  if (action === 'session.page') nextPage(m);
}

async function subscribe(m) {
  m.live = false;
  const res = await conn.request('session.subscribe', m.subscribePayload());
  if (state.model !== m) return;
  draw(m, m.applySubscribe(res));
  nextPage(m);
}

// nextPage asks for the next page of a large snapshot; it arrives as a
// session.page notification, and a lost one is fetched again by the
// resubscribe after a reconnect.
function nextPage(m) {
  const p = m.pagePayload();
  if (p && state.model === m && conn.open) conn.request('session.page', p).catch(() => {});
}

function draw(m, ch) {
  if (m !== state.model) return;
  chat.update(m, ch);
  // Streamed text (most events) cannot change the pinned cards.
  const pinned = ch.reset || ch.state || ch.deleted.size > 0
    || [...ch.upserted].some((id) => (m.messages.get(id) || {}).role === 'status');
  if (pinned) status.update(m);
  renderHead();
  if (ch.state || pinned) flushQueue();
}

// ---- tasks ------------------------------------------------------------------

function onTaskUpdated(task) {
  const old = state.tasks.get(task.id);
  if (old && Date.parse(old.updated_at) > Date.parse(task.updated_at)) return; // stale
  state.tasks.set(task.id, task);
  alerts.update(task);
  renderTasks();
  const m = state.model;
  if (m && m.taskId === task.id) {
    const s = latestSession(task);
    if (s && s.id !== m.sessionId) openTask(task.id, { force: true }); // a new session replaced it
    else renderHead();
  } else {
    flushBackground(task);
  }
}

// flushBackground sends the first queued message of a task that is not
// open once its turn has ended cleanly (Review: no retry parked, no banner).
const backgroundSending = new Set();
async function flushBackground(task) {
  const s = latestSession(task);
  if (!s || s.state !== 'WAITING_FOR_INPUT' || task.state !== 'REVIEW' || backgroundSending.has(s.id) || !conn.open) return;
  let q;
  try {
    q = JSON.parse(sessionStorage.getItem(QUEUE_KEY + s.id) || '[]');
  } catch {
    return;
  }
  if (!Array.isArray(q) || !q.length) return;
  backgroundSending.add(s.id);
  try {
    await conn.request('session.prompt', { task_id: task.id, session_id: s.id, text: q[0].text });
    const now = JSON.parse(sessionStorage.getItem(QUEUE_KEY + s.id) || '[]').filter((x) => x.id !== q[0].id);
    if (now.length) sessionStorage.setItem(QUEUE_KEY + s.id, JSON.stringify(now));
    else sessionStorage.removeItem(QUEUE_KEY + s.id);
    const m = state.model;
    if (m && m.sessionId === s.id && m.queued) {
      m.queued = m.queued.filter((x) => x.id !== q[0].id); // opened meanwhile
      renderQueue();
    }
  } catch {
    // kept queued: the task's next update tries again, or opening it does
  } finally {
    backgroundSending.delete(s.id);
  }
}

function renderTasks() {
  const { total, shown } = taskList.render(state.tasks.values(), state.model ? state.model.taskId : '');
  $('tasks-count').textContent = total && shown !== total ? `${shown} of ${total}` : '';
  if (state.listed && total === 0) foldForm(false); // nothing to list: the form is the page
}

// The list shows how long ago each task moved; keep that current.
setInterval(renderTasks, 60_000);

// onTaskDeleted drops a task deleted here or on another page.
function onTaskDeleted(id) {
  if (!state.tasks.delete(id)) return;
  const m = state.model;
  if (m && m.taskId === id) {
    if (conn.open) conn.request('session.unsubscribe', { session_id: m.sessionId }).catch(() => {});
    state.model = null;
    document.body.classList.remove('has-task');
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    chat.show(null);
    status.update(null);
    renderHead();
  }
  renderTasks();
  if (!state.model && document.activeElement === document.body) ($('tasks').querySelector('button') || $('nt-toggle')).focus();
}

$('task-search').addEventListener('input', () => {
  taskList.query = $('task-search').value;
  renderTasks();
});
$('task-filter').addEventListener('change', () => {
  taskList.filter = $('task-filter').value;
  renderTasks();
});

function renderAgents(agents) {
  const select = $('nt-agent');
  const previous = select.value;
  select.replaceChildren();
  for (const a of agents) {
    const opt = el('option', { value: a.name, text: (a.installed ?? a.available) ? a.name : `${a.name} (not installed)` });
    select.append(opt);
  }
  const pick = agents.find((a) => a.name === previous) || agents.find((a) => a.default) || agents.find((a) => a.name === 'mock') || agents[0];
  if (pick) select.value = pick.name;
  renderAgentInfo();
}

// renderAgentInfo says what the chosen agent runs and whether it is installed.
function renderAgentInfo() {
  const info = $('nt-agent-info');
  const a = state.agents.find((x) => x.name === $('nt-agent').value);
  info.replaceChildren();
  if (!a) return;
  const ok = a.installed ?? a.available;
  info.dataset.installed = ok ? 'true' : 'false';
  info.append(el('span', { class: 'agent-status', text: ok ? 'Installed' : 'Not installed' }),
    ok ? ` · ${a.path || a.command}` : ` · "${a.command}" is not on the daemon's PATH; install it or fix the profile's command.`,
    a.model ? ` · model ${a.model}` : '');
}

$('nt-agent').addEventListener('change', renderAgentInfo);

// ---- the New task form folds away once there are tasks ----------------------

function foldForm(folded) {
  $('new-task').hidden = folded;
  $('nt-toggle').hidden = !folded;
  $('nt-toggle').setAttribute('aria-expanded', String(!folded));
  $('nt-fold').hidden = state.tasks.size === 0;
}

function newTask() {
  foldForm(false);
  document.body.classList.add('show-list'); // narrow screens: the form lives in the list view
  $('nt-prompt').focus();
}

$('nt-toggle').addEventListener('click', newTask);
$('nt-fold').addEventListener('click', () => {
  foldForm(true);
  $('nt-toggle').focus();
});

function taskFromHash() {
  const m = /^#task=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : '';
}

window.addEventListener('hashchange', () => {
  const id = taskFromHash();
  if (id && state.tasks.has(id)) openTask(id);
});

function openTask(taskId, { force = false, fromList = false } = {}) {
  const task = state.tasks.get(taskId);
  const session = latestSession(task);
  if (!session) return;
  document.body.classList.remove('show-list');
  const old = state.model;
  if (old && old.sessionId === session.id && !force) {
    if (fromList && narrow.matches) $('chat-title').focus();
    return;
  }
  if (old && old.sessionId !== session.id && conn.open) {
    conn.request('session.unsubscribe', { session_id: old.sessionId }).catch(() => {});
  }
  const m = new SessionModel(taskId, session.id);
  state.model = m;
  document.body.classList.add('has-task');
  const hash = `#task=${encodeURIComponent(taskId)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  chat.show(m);
  status.update(m);
  loadDraft();
  renderTasks();
  renderHead();
  if (fromList && narrow.matches) $('chat-title').focus(); // the list just disappeared
  if (conn.open) subscribe(m).catch(showError);
}

$('back').addEventListener('click', () => {
  document.body.classList.add('show-list');
  const current = state.model && $('tasks').querySelector(`[data-task-id="${CSS.escape(state.model.taskId)}"]`);
  (current || ($('new-task').hidden ? $('nt-toggle') : $('nt-title'))).focus();
});

// ---- new task ---------------------------------------------------------------

$('new-task').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const submit = $('nt-submit');
  const fields = { title: $('nt-title'), prompt: $('nt-prompt'), max: $('nt-max') };
  const sent = { title: fields.title.value, prompt: fields.prompt.value, max: fields.max.value };
  const payload = { title: sent.title.trim(), prompt: sent.prompt, agent: $('nt-agent').value || 'mock' };
  if (sent.max.trim()) payload.max_attempts = Number(sent.max);
  const workdir = $('nt-workdir').value.trim(); // kept after creating, like the agent
  if (workdir) payload.workdir = workdir;
  workdirError('');
  const wait = $('nt-gate').value; // kept after creating: the next task is likely alike
  if (wait && !$('nt-gate-field').hidden) payload.gate_deadline_seconds = Number(wait);
  const onUsage = $('nt-usage').value;
  if (onUsage) payload.on_usage_limit = onUsage;
  if (!payload.prompt.trim()) {
    formError('Write a prompt for the agent.');
    fields.prompt.focus();
    return;
  }
  submit.disabled = true;
  formError('');
  alerts.askOnce(); // a click: the one moment a browser lets a page ask
  try {
    const { task } = await conn.request('task.create', payload);
    state.tasks.set(task.id, task);
    // Clear only what was sent: anything typed meanwhile stays.
    for (const k of Object.keys(fields)) if (fields[k].value === sent[k]) fields[k].value = '';
    foldForm(true);
    renderTasks();
    openTask(task.id);
    $('chat-title').focus();
  } catch (err) {
    if (err.details && err.details.field === 'workdir') {
      workdirError(`${describe(err).replace(/^Invalid request: /i, '').replace(/^./, (c) => c.toUpperCase())} Your text is kept.`);
      $('nt-workdir').focus();
      return;
    }
    formError(err.code === 'LOST'
      ? 'The connection dropped before the daemon answered. Check the task list before creating it again; your text is kept.'
      : `Not created: ${describe(err)} Your text is kept.`);
  } finally {
    submit.disabled = false;
  }
});

$('nt-prompt').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
    ev.preventDefault();
    $('new-task').requestSubmit();
  }
});

/**
 * showGateDefault names the daemon's own gate deadline in the "keep
 * waiting" choice (its configured value, not always 30 min), and hides the
 * choice when the overload gate is off.
 */
function showGateDefault(list) {
  $('nt-gate-field').hidden = list.enabled === false;
  const secs = Number(list.deadline_seconds);
  if (!(secs > 0)) return;
  let text = `${Math.round(secs)} s`;
  if (secs % 3600 === 0) text = `${secs / 3600} h`;
  else if (secs >= 60) text = `${Math.round(secs / 60)} min`;
  $('nt-gate-default').textContent = `${text} (default)`;
}

function workdirError(text) {
  const e = $('nt-workdir-error');
  e.textContent = text;
  e.hidden = !text;
  $('nt-workdir').setAttribute('aria-invalid', text ? 'true' : 'false');
}

function formError(text) {
  const e = $('nt-error');
  e.textContent = text;
  e.hidden = !text;
}

// ---- the open session -------------------------------------------------------

function renderHead() {
  const m = state.model;
  const task = m && state.tasks.get(m.taskId);
  const title = task ? task.title || task.id : 'No task selected';
  $('chat-title').textContent = title;
  document.title = task ? `${title} · orchestratord` : 'orchestratord';
  const badge = $('chat-state');
  // The header says what the task list says: one vocabulary (tasks.js).
  const b = task ? badgeFor(task) : null;
  badge.hidden = !b;
  if (b) {
    badge.textContent = b.label;
    badge.title = b.hint || '';
    badge.className = `badge ${b.key}`;
    badge.dataset.state = b.key;
  }
  $('stop').hidden = !m || !m.active;
  $('stop').disabled = state.offline;
  renderTaskMeta(task, m);
  manager.render();
  $('empty-chat').hidden = !!m;
  $('messages').setAttribute('aria-busy', m && m.active ? 'true' : 'false');
  $('prompt').disabled = !m;
  renderComposer();
  const c = $('chat');
  c.dataset.sessionId = m ? m.sessionId : '';
  c.dataset.state = m ? m.state : '';
  c.dataset.lastSeq = m ? String(m.lastSeq) : '';
  c.dataset.syncMode = m ? m.mode : '';
}

async function runAction(action) {
  if (action.type !== 'ws_request' || !action.action) return;
  try {
    await conn.request(action.action, action.payload || {});
  } catch (err) {
    showError(err, true);
    throw err;
  }
}

$('stop').addEventListener('click', async () => {
  const m = state.model;
  if (!m) return;
  const btn = $('stop');
  btn.disabled = true;
  try {
    await conn.request('session.stop', { task_id: m.taskId, session_id: m.sessionId });
  } catch (err) {
    showError(err, true);
  } finally {
    btn.disabled = false;
  }
});

// ---- composer: Enter sends, Shift+Enter is a new line; nothing typed is lost --
//
// A message sent while a turn runs is queued (shown above the box, with
// Cancel) and sent when the turn ends; it is kept in sessionStorage, so a
// reload keeps it too. A queued message waits while a retry is parked or a
// banner asks for a decision: it would replace either.

function draftKey(m) {
  return DRAFT_KEY + m.sessionId;
}

function loadDraft() {
  const m = state.model;
  $('prompt').value = m ? sessionStorage.getItem(draftKey(m)) || '' : '';
  composerError('');
}

function saveDraft(m, text) {
  if (!m) return;
  if (text) sessionStorage.setItem(draftKey(m), text);
  else sessionStorage.removeItem(draftKey(m));
}

$('prompt').addEventListener('input', () => saveDraft(state.model, $('prompt').value));

function queueOf(m) {
  if (!m) return [];
  if (!m.queued) {
    try {
      m.queued = JSON.parse(sessionStorage.getItem(QUEUE_KEY + m.sessionId) || '[]');
    } catch {
      m.queued = [];
    }
    if (!Array.isArray(m.queued)) m.queued = [];
  }
  return m.queued;
}

function saveQueue(m) {
  const q = queueOf(m);
  if (q.length) sessionStorage.setItem(QUEUE_KEY + m.sessionId, JSON.stringify(q));
  else sessionStorage.removeItem(QUEUE_KEY + m.sessionId);
}

// held says why a queued message is not sent yet ('' when it can go now).
function held(m) {
  if (!m || !m.synced) return 'sync';
  if (m.active) return 'running';
  if (m.latestNotice('retry_notice')) return 'retry';
  if (m.latestNotice('recovery')) return 'banner';
  return '';
}

const HELD_TEXT = {
  running: 'Sent when the current turn ends.',
  retry: 'Waiting: sent once the automatic retry has finished.',
  banner: 'Held: the last turn stopped. Send it now to carry on, or cancel it.',
  sync: 'Sent once the chat is up to date.',
};

let queueKey = '';
function renderQueue() {
  const m = state.model;
  const q = queueOf(m);
  const box = $('queued');
  const why = state.offline ? 'Sent when the daemon is back and the turn has ended.' : HELD_TEXT[held(m)] || 'Sending…';
  // Redrawn only when it changes: streamed text redraws the head many times
  // a second, and a Cancel button replaced under the pointer loses its click.
  const key = JSON.stringify([m ? m.sessionId : '', q, why, held(m) === 'banner' && !state.offline]);
  if (key === queueKey) return;
  queueKey = key;
  box.hidden = q.length === 0;
  if (!q.length) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(...q.map((item, i) => {
    const cancel = el('button', { type: 'button', class: 'secondary queued-cancel', text: 'Cancel' });
    cancel.addEventListener('click', () => {
      const list = queueOf(m);
      const at = list.findIndex((x) => x.id === item.id);
      if (at >= 0) list.splice(at, 1);
      saveQueue(m);
      renderQueue();
    });
    let now = null;
    if (i === 0 && held(m) === 'banner' && !state.offline) {
      now = el('button', { type: 'button', class: 'secondary queued-send', text: 'Send now' });
      now.addEventListener('click', () => flushQueue(true));
    }
    return el('div', { class: 'queued-item', dataset: { id: item.id } },
      el('span', { class: 'queued-label', text: 'Queued' }),
      el('span', { class: 'queued-text', text: item.text }),
      el('span', { class: 'queued-why', text: i === 0 ? why : 'After the one above.' }),
      now, cancel);
  }));
}

function enqueue(m, text) {
  queueOf(m).push({ id: `q${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, text });
  saveQueue(m);
  renderQueue();
}

// flushQueue sends the first queued message once nothing holds it (or at
// once when the user says so).
async function flushQueue(force = false) {
  const m = state.model;
  const q = queueOf(m);
  if (!q.length || state.sending || !conn.open || backgroundSending.has(m.sessionId)) return;
  const why = held(m);
  if (why && !(force && why === 'banner')) return;
  const item = q[0];
  state.sending = true;
  renderComposer();
  try {
    await conn.request('session.prompt', { task_id: m.taskId, session_id: m.sessionId, text: item.text });
    const list = queueOf(m);
    const at = list.findIndex((x) => x.id === item.id);
    if (at >= 0) list.splice(at, 1);
    saveQueue(m);
  } catch (err) {
    // A turn started meanwhile (another tab): it stays queued for that one.
    if (err.code !== 'CONFLICT' && err.code !== 'OFFLINE' && err.code !== 'LOST') {
      const list = queueOf(m);
      const at = list.findIndex((x) => x.id === item.id);
      if (at >= 0) list.splice(at, 1);
      saveQueue(m);
      if (state.model === m) {
        const box = $('prompt');
        box.value = box.value ? `${item.text}\n${box.value}` : item.text;
        saveDraft(m, box.value);
        composerError(`Your queued message was not sent: ${describe(err)} It is back in the box.`);
      }
    }
  } finally {
    state.sending = false;
    renderHead();
  }
}

// renderComposer: Send says what it will do; a hint says why it cannot.
function renderComposer() {
  const m = state.model;
  const send = $('send');
  const hint = $('composer-hint');
  let text = '';
  if (m && state.offline) {
    text = 'The daemon is unreachable. This page reconnects by itself; your text stays here, and you can send it once the connection is back.';
  } else if (m && m.active) {
    text = 'The agent is working: a message you send now is queued and sent when this turn ends.';
  }
  hint.textContent = text;
  hint.hidden = !text;
  send.textContent = m && m.active && !state.offline ? 'Queue' : 'Send';
  send.disabled = !m || state.sending || state.offline;
  renderQueue();
}

async function sendPrompt() {
  const m = state.model;
  const box = $('prompt');
  const text = box.value;
  if (!m || !text.trim() || state.sending || state.offline) return;
  composerError('');
  const taken = () => {
    // Keep whatever was typed after pressing Enter.
    box.value = box.value.startsWith(text) ? box.value.slice(text.length).replace(/^\n+/, '') : box.value;
    saveDraft(m, box.value);
  };
  if (m.active || queueOf(m).length) {
    enqueue(m, text);
    taken();
    flushQueue();
    return;
  }
  state.sending = true;
  renderComposer();
  try {
    await conn.request('session.prompt', { task_id: m.taskId, session_id: m.sessionId, text });
    if (state.model === m) taken();
    else if (sessionStorage.getItem(draftKey(m)) === text) saveDraft(m, '');
  } catch (err) {
    if (err.code === 'CONFLICT' && state.model === m) {
      // A turn is running after all (started elsewhere): queue it.
      enqueue(m, text);
      taken();
    } else {
      composerError(err.code === 'LOST'
        ? 'The connection dropped before the daemon confirmed. Your message is kept: check the chat before sending it again.'
        : `Not sent: ${describe(err)} Your message is kept — send it again when ready.`);
    }
  } finally {
    state.sending = false;
    renderHead();
  }
}

$('composer').addEventListener('submit', (ev) => {
  ev.preventDefault();
  sendPrompt();
});

$('prompt').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing && !ev.ctrlKey && !ev.altKey && !ev.metaKey) {
    ev.preventDefault();
    sendPrompt();
  }
});

function composerError(text) {
  const e = $('composer-error');
  e.textContent = text;
  e.hidden = !text;
}

// renderTaskMeta is the quiet line under the chat header: agent, folder,
// times, and the task's usage when its agent reports it.
function renderTaskMeta(task, m) {
  const meta = $('task-meta');
  meta.hidden = !task;
  const usage = $('chat-usage');
  const u = m ? usageLine(usageTotal(m)) : '';
  usage.hidden = !u;
  usage.textContent = u;
  usage.title = u ? 'What the agent reported for this task (tokens and cost)' : '';
  if (!task) return;
  const agent = state.agents.find((a) => a.name === task.agent);
  const bits = [];
  if (task.workdir) bits.push(`folder ${task.workdir}`);
  const created = Date.parse(task.created_at);
  if (!Number.isNaN(created)) bits.push(`created ${new Date(created).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })}`);
  if (task.archived_at) bits.push('archived');
  meta.replaceChildren(
    el('span', { class: 'meta-agent', text: `Agent ${task.agent}${agent && !(agent.installed ?? agent.available) ? ' (not installed)' : ''}` }),
    ...(task.model ? [' · ', el('span', { class: 'meta-model', title: modelSource(task), text: `model ${task.model}` })] : []),
    ...bits.map((b) => ` · ${b}`));
}

// ---- keyboard ---------------------------------------------------------------

function focusPrompt() {
  if (state.model) {
    document.body.classList.remove('show-list');
    $('prompt').focus();
  } else {
    newTask();
  }
}

function nextTask(step) {
  const ids = taskList.shown;
  if (!ids.length) return;
  const i = state.model ? ids.indexOf(state.model.taskId) : -1;
  const next = ids[i < 0 ? (step > 0 ? 0 : ids.length - 1) : (i + step + ids.length) % ids.length];
  openTask(next);
  const btn = $('tasks').querySelector(`[data-task-id="${CSS.escape(next)}"]`);
  if (btn && !narrow.matches) btn.focus();
  else $('chat-title').focus();
}

installShortcuts({
  newTask,
  focusPrompt,
  stop: () => { if (!$('stop').hidden) $('stop').click(); },
  nextTask,
  help: () => $('shortcuts-dialog').showModal(),
});
$('shortcuts-btn').addEventListener('click', () => $('shortcuts-dialog').showModal());

const fleet = new FleetPanel({
  dialog: $('fleet-dialog'),
  list: $('fleet-list'),
  summary: $('fleet-summary'),
  now: () => Date.now() + conn.skewMs,
  fetch: () => conn.request('fleet.list', {}),
});
$('fleet-btn').addEventListener('click', () => fleet.open());

// ---- notices ----------------------------------------------------------------

function describe(err) {
  if (!err) return 'unknown error.';
  // The daemon's message, without the ids it names (of no use to a reader).
  const msg = String(err.message || err).replace(/\s*(?:in |of )?(?:session|task) "[^"]*"/g, '').replace(/\.?$/, '.');
  return msg.charAt(0).toUpperCase() + msg.slice(1);
}

function showNotice(text) {
  $('notice-text').textContent = text;
  $('notice').hidden = false;
}

function hideNotice() {
  $('notice').hidden = true;
}

function showError(err, evenOffline = false) {
  if (err && (err.code === 'OFFLINE' || err.code === 'LOST') && !evenOffline) return; // the indicator says it
  showNotice(describe(err));
}

$('notice-close').addEventListener('click', hideNotice);

// The skip link moves focus without touching the hash (it holds the task).
document.querySelector('.skip').addEventListener('click', (ev) => {
  ev.preventDefault();
  if ($('prompt').disabled) newTask(); // opens the folded form at its prompt
  else $('prompt').focus();
});

renderHead();
conn.start();
