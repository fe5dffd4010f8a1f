// The task list: one button per task with a state badge. The badge folds the
// task state and its newest session's state into what the user needs to know:
// is it running, is it waiting for them, is it ready for review.

import { el, parseTime } from './dom.js';

/** latestSession returns a TaskView's newest session, or null. */
export function latestSession(task) {
  const s = (task && task.sessions) || [];
  return s.length ? s[s.length - 1] : null;
}

/**
 * agentLabel names a task's agent and, when known, its model: "codex ·
 * gpt-5.4". The model is the one the agent reported, else the one its
 * profile names (TaskView.model); never guessed.
 */
export function agentLabel(task) {
  const agent = (task && task.agent) || '';
  return task && task.model ? `${agent} · ${task.model}` : agent;
}

/** modelSource says where TaskView.model comes from, for a tooltip. */
export function modelSource(task) {
  const s = latestSession(task);
  if (!task || !task.model) return '';
  return s && s.model ? 'The model the agent reported for this session' : 'The model the agent profile names (the agent reports none)';
}

/**
 * badgeFor returns {key, label, hint} for a TaskView: the one vocabulary of
 * states, shown alike in the task list and the chat header. key is a task or
 * session state (PAUSED: the user cancelled a retry), used as the CSS class
 * and data-state.
 */
export function badgeFor(task) {
  const s = latestSession(task);
  const ss = s ? s.state : '';
  if (ss === 'QUEUED') {
    const n = task.queue_position;
    return { key: 'QUEUED', label: n ? `Queued #${n}` : 'Queued', hint: 'Waiting for a free agent slot (--max-agents); it starts in turn' };
  }
  if (ss === 'STARTING' || ss === 'RUNNING') return { key: 'RUNNING', label: 'Running', hint: 'The agent is working' };
  if (ss === 'FAILED' && task.paused) return { key: 'PAUSED', label: 'Paused', hint: 'You cancelled the retry; resume or start fresh when ready' };
  if (ss === 'FAILED') return { key: 'FAILED', label: 'Needs you', hint: 'The agent stopped; the banner says what to do' };
  switch (task.state) {
    case 'IN_PROGRESS':
      if (ss === 'WAITING_FOR_INPUT') return { key: 'WAITING_FOR_INPUT', label: 'Retrying', hint: 'Waiting to retry automatically' };
      return { key: 'IN_PROGRESS', label: 'In progress', hint: '' };
    case 'REVIEW': return { key: 'REVIEW', label: 'Review', hint: 'The turn finished; review the result or send a follow-up' };
    case 'DONE': return { key: 'DONE', label: 'Done', hint: '' };
    case 'CANCELLED': return { key: 'CANCELLED', label: 'Cancelled', hint: '' };
    case 'TODO': return { key: 'TODO', label: 'To do', hint: '' };
    default: return { key: task.state || 'UNKNOWN', label: (task.state || 'unknown').toLowerCase(), hint: '' };
  }
}

// The filter choices of the list (index.html #task-filter): what a badge
// key counts as. An archived task shows only under "archived" and "all".
const FILTER_KEYS = {
  working: new Set(['QUEUED', 'RUNNING', 'STARTING', 'IN_PROGRESS', 'WAITING_FOR_INPUT', 'WAITING']),
  needs: new Set(['FAILED', 'NEEDS_YOU', 'PAUSED']),
  review: new Set(['REVIEW', 'TODO']),
  done: new Set(['DONE', 'COMPLETED', 'CANCELLED']),
};

/** matchesFilter tells whether a task shows under filter and search query. */
export function matchesFilter(task, filter, query) {
  const archived = !!task.archived_at;
  if (filter === 'archived') {
    if (!archived) return false;
  } else if (filter !== 'all') {
    if (archived) return false;
    if (filter && FILTER_KEYS[filter] && !FILTER_KEYS[filter].has(badgeFor(task).key)) return false;
  }
  const q = (query || '').trim().toLowerCase();
  if (!q) return true;
  return `${task.title || ''}\n${task.agent || ''}\n${task.model || ''}\n${task.workdir || ''}`.toLowerCase().includes(q);
}

/** shortAge says how long ago ms was, briefly: "now", "5 min", "3 h", "2 d", or a date. */
export function shortAge(ms, now = Date.now()) {
  const s = Math.max(0, (now - ms) / 1000);
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  if (s < 7 * 86400) return `${Math.floor(s / 86400)} d`;
  return new Date(ms).toLocaleDateString([], { month: 'short', day: 'numeric' });
}

function longTime(ms) {
  return new Date(ms).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

export class TaskList {
  /**
   * @param {HTMLElement} list  the <ul>
   * @param {HTMLElement} empty shown when there are no tasks
   * @param {(taskId: string) => void} onOpen
   */
  constructor(list, empty, onOpen) {
    this.list = list;
    this.empty = empty;
    this.onOpen = onOpen;
    this.filter = ''; // index.html #task-filter values
    this.query = '';
    this.shown = []; // ids in list order, for next/previous task
  }

  render(tasks, selectedId) {
    const all = [...tasks];
    const sorted = all.filter((t) => matchesFilter(t, this.filter, this.query))
      .sort((a, b) => (parseTime(b.created_at) || 0) - (parseTime(a.created_at) || 0));
    const focused = document.activeElement && this.list.contains(document.activeElement)
      ? document.activeElement.dataset.taskId : '';
    this.list.replaceChildren();
    const now = Date.now();
    for (const t of sorted) {
      const badge = badgeFor(t);
      const created = parseTime(t.created_at);
      const updated = parseTime(t.updated_at) || created;
      const when = Number.isNaN(updated) ? null : el('time', {
        class: 'task-time', datetime: t.updated_at,
        title: `Created ${longTime(created)} · last activity ${longTime(updated)}`,
        text: shortAge(updated, now),
      });
      const btn = el('button', {
        type: 'button', class: `task${t.archived_at ? ' archived' : ''}`,
        'aria-current': t.id === selectedId ? 'true' : null,
        title: badge.hint || null,
        dataset: { taskId: t.id, state: badge.key },
      },
      el('span', { class: 'task-main' },
        el('span', { class: 'task-title', text: t.title || t.id }),
        el('span', { class: 'task-agent', title: modelSource(t) || null, text: agentLabel(t) })),
      when,
      el('span', { class: `badge ${badge.key}`, text: badge.label }));
      btn.addEventListener('click', () => this.onOpen(t.id));
      this.list.append(el('li', {}, btn));
      if (t.id === focused) btn.focus(); // a live update must not steal keyboard focus
    }
    this.shown = sorted.map((t) => t.id);
    this.empty.hidden = sorted.length > 0;
    if (!sorted.length) {
      this.empty.textContent = all.length ? 'No task matches.' : 'No tasks yet.';
    }
    return { total: all.length, shown: sorted.length };
  }
}
