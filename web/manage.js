// Task management from the chat header: the "⋯" menu (rename, mark done or
// reopen, archive or restore, delete) and the delete confirmation. Every
// change goes through task.update / task.delete; the daemon's task.updated
// and task.deleted notifications redraw every open page.

import { $ } from './dom.js';

/** ownWorkdir tells whether a task's folder is the daemon's own (removed with it). */
export function ownWorkdir(task) {
  const dir = String((task && task.workdir) || '').replace(/\/+$/, '');
  return !!task && dir.endsWith(`/workspaces/${task.id}`);
}

export class TaskManager {
  /**
   * @param {object} o
   * @param {import('./conn.js').Connection} o.conn
   * @param {() => object|null} o.current   the open task's TaskView
   * @param {(task: object) => void} o.onUpdated
   * @param {(taskId: string) => void} o.onDeleted
   * @param {(err: any) => string} o.describe
   */
  constructor({ conn, current, onUpdated, onDeleted, describe }) {
    Object.assign(this, { conn, current, onUpdated, onDeleted, describe });
    this.btn = $('task-menu-btn');
    this.menu = $('task-menu');
    this.dialog = $('delete-dialog');
    this.btn.addEventListener('click', () => (this.menu.hidden ? this.openMenu() : this.closeMenu(true)));
    this.menu.addEventListener('keydown', (ev) => this.menuKey(ev));
    document.addEventListener('pointerdown', (ev) => {
      if (!this.menu.hidden && !this.menu.contains(ev.target) && ev.target !== this.btn) this.closeMenu(false);
    });
    $('act-rename').addEventListener('click', () => { this.closeMenu(false); this.startRename(); });
    $('act-done').addEventListener('click', () => {
      this.closeMenu(true);
      const t = this.current();
      if (t) this.update({ done: t.state !== 'DONE' });
    });
    $('act-archive').addEventListener('click', () => {
      this.closeMenu(true);
      const t = this.current();
      if (t) this.update({ archived: !t.archived_at });
    });
    $('act-delete').addEventListener('click', () => { this.closeMenu(false); this.confirmDelete(); });
    $('rename-form').addEventListener('submit', (ev) => { ev.preventDefault(); this.saveRename(); });
    $('rename-cancel').addEventListener('click', () => this.endRename());
    $('rename-input').addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') { ev.preventDefault(); this.endRename(); }
      if (ev.key === 'Enter' && !ev.isComposing) { ev.preventDefault(); this.saveRename(); }
    });
    $('delete-cancel').addEventListener('click', () => this.dialog.close());
    $('delete-confirm').addEventListener('click', () => this.doDelete());
  }

  /** render shows the menu button for an open task and names the toggles. */
  render() {
    const t = this.current();
    this.btn.hidden = !t;
    if (!t) {
      this.closeMenu(false);
      this.endRename();
      return;
    }
    $('act-done').textContent = t.state === 'DONE' ? 'Reopen' : 'Mark done';
    $('act-archive').textContent = t.archived_at ? 'Restore from archive' : 'Archive';
  }

  openMenu() {
    this.render();
    this.menu.hidden = false;
    this.btn.setAttribute('aria-expanded', 'true');
    this.menu.querySelector('[role="menuitem"]').focus();
  }

  closeMenu(refocus) {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.btn.setAttribute('aria-expanded', 'false');
    if (refocus) this.btn.focus();
  }

  // Arrow keys move between the items, Escape closes (menu button pattern).
  menuKey(ev) {
    const items = [...this.menu.querySelectorAll('[role="menuitem"]')];
    const i = items.indexOf(document.activeElement);
    if (ev.key === 'Escape') {
      ev.preventDefault();
      this.closeMenu(true);
    } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      const n = items.length;
      items[(i + (ev.key === 'ArrowDown' ? 1 : n - 1)) % n].focus();
    } else if (ev.key === 'Tab') {
      this.closeMenu(false);
    }
  }

  error(text) {
    const e = $('manage-error');
    e.textContent = text;
    e.hidden = !text;
  }

  async update(change) {
    const t = this.current();
    if (!t) return false;
    this.error('');
    try {
      const { task } = await this.conn.request('task.update', { task_id: t.id, ...change });
      this.onUpdated(task);
      return true;
    } catch (err) {
      this.error(`Not changed: ${this.describe(err)}`);
      return false;
    }
  }

  startRename() {
    const t = this.current();
    if (!t) return;
    const input = $('rename-input');
    input.value = t.title || '';
    $('chat-title').hidden = true;
    $('rename-form').hidden = false;
    input.focus();
    input.select();
  }

  endRename() {
    const form = $('rename-form');
    if (form.hidden) return;
    form.hidden = true;
    $('chat-title').hidden = false;
    this.btn.focus();
  }

  async saveRename() {
    const title = $('rename-input').value.trim();
    if (!title) {
      this.error('A task needs a title.');
      return;
    }
    if (await this.update({ title })) this.endRename();
  }

  confirmDelete() {
    const t = this.current();
    if (!t) return;
    $('delete-title').textContent = `Delete “${t.title || t.id}”?`;
    $('delete-text').textContent = 'Its conversation and history are removed from the daemon. This cannot be undone.';
    $('delete-dir').textContent = ownWorkdir(t)
      ? `Its folder ${t.workdir} was made by the daemon for this task and is removed too.`
      : `Your folder ${t.workdir || '(none)'} is kept: deleting a task never touches a folder you chose.`;
    const e = $('delete-error');
    e.hidden = true;
    e.textContent = '';
    this.dialog.dataset.taskId = t.id;
    this.dialog.showModal();
    $('delete-cancel').focus(); // the safe choice first
  }

  async doDelete() {
    const id = this.dialog.dataset.taskId;
    const btn = $('delete-confirm');
    btn.disabled = true;
    try {
      await this.conn.request('task.delete', { task_id: id });
      this.dialog.close();
      this.onDeleted(id);
    } catch (err) {
      const e = $('delete-error');
      e.textContent = err.code === 'CONFLICT'
        ? 'The task is still working or waiting to retry. Stop it (or cancel the retry) first, then delete it.'
        : `Not deleted: ${this.describe(err)}`;
      e.hidden = false;
    } finally {
      btn.disabled = false;
    }
  }
}
