// Browser notifications for the person who switched away: when a task turns
// to "needs you" (its recovery banner) or finishes a turn while this tab is
// hidden, the Notification API says so. Permission is asked for once — on the
// first task created here, since browsers ask only from a click — and the
// answer is remembered; nothing is shown while the tab is visible (the page
// itself says it then).

import { latestSession } from './tasks.js';

const ASKED_KEY = 'orchestratord.notifications.asked';

function defaultEnv() {
  return {
    Notification: 'Notification' in window ? window.Notification : null,
    hidden: () => document.hidden,
    storage: window.localStorage,
  };
}

export class TaskAlerts {
  /**
   * @param {{onOpen?: (taskId: string) => void, env?: object}} opts
   * env (for tests): {Notification, hidden(), storage}.
   */
  constructor({ onOpen = () => {}, env = defaultEnv() } = {}) {
    this.onOpen = onOpen;
    this.env = env;
    this.known = new Map(); // task id → {task, session} states last seen
  }

  /** askOnce asks for permission the first time only; call it from a click. */
  askOnce() {
    const N = this.env.Notification;
    if (!N || N.permission !== 'default') return;
    try {
      if (this.env.storage.getItem(ASKED_KEY)) return;
      this.env.storage.setItem(ASKED_KEY, '1');
    } catch { /* no storage (private mode): ask, and maybe again next time */ }
    Promise.resolve(N.requestPermission()).catch(() => {});
  }

  /**
   * update compares a TaskView with the states last seen and tells of a
   * change to needs-you or finished. The first sight of a task tells nothing.
   * Returns the kind told ('needs_you', 'finished') or ''.
   */
  update(task) {
    const s = latestSession(task);
    const now = { task: task.state, session: s ? s.state : '' };
    const prev = this.known.get(task.id);
    this.known.set(task.id, now);
    if (!prev || (prev.task === now.task && prev.session === now.session)) return '';
    let kind = '';
    if (now.session === 'FAILED' && prev.session !== 'FAILED') kind = 'needs_you';
    else if (now.task === 'REVIEW' && now.session === 'WAITING_FOR_INPUT' && prev.task !== 'REVIEW') kind = 'finished';
    const N = this.env.Notification;
    if (!kind || !N || N.permission !== 'granted' || !this.env.hidden()) return '';
    const title = task.title || 'Untitled task';
    const n = new N(kind === 'needs_you' ? `Needs you: ${title}` : `Finished: ${title}`, {
      body: kind === 'needs_you' ? 'The agent stopped; resume or start fresh.' : 'The agent finished its turn.',
      tag: `orchestratord-task-${task.id}`, // a later one replaces it
    });
    n.onclick = () => {
      window.focus();
      this.onOpen(task.id);
      n.close();
    };
    return kind;
  }
}
