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
  }

  render(tasks, selectedId) {
    const sorted = [...tasks].sort((a, b) => (parseTime(b.created_at) || 0) - (parseTime(a.created_at) || 0));
    const focused = document.activeElement && this.list.contains(document.activeElement)
      ? document.activeElement.dataset.taskId : '';
    this.list.replaceChildren();
    for (const t of sorted) {
      const badge = badgeFor(t);
      const btn = el('button', {
        type: 'button', class: 'task',
        'aria-current': t.id === selectedId ? 'true' : null,
        title: badge.hint || null,
        dataset: { taskId: t.id, state: badge.key },
      },
      el('span', { class: 'task-title', text: t.title || t.id }),
      el('span', { class: `badge ${badge.key}`, text: badge.label }));
      btn.addEventListener('click', () => this.onOpen(t.id));
      this.list.append(el('li', {}, btn));
      if (t.id === focused) btn.focus(); // a live update must not steal keyboard focus
    }
    this.empty.hidden = sorted.length > 0;
  }
}
