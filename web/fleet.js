// FleetPanel: the daemons serving this page's tasks (fleet.list) in a
// dialog opened from the header — each one's id, address and host, its
// load against --max-agents, its agent profiles and its health — with this
// daemon marked. On SQLite the fleet is this daemon alone. It refreshes
// while open and stops when closed.

import { el, parseTime } from './dom.js';

/** REFRESH_MS is how often the open panel asks again. */
export const REFRESH_MS = 2000;

/**
 * healthOf says how a member is doing, judged at now (epoch ms, the
 * server's clock): healthy — its lease is current and its heartbeat
 * recent; late — its lease is current but its heartbeat is more than half
 * a lease old (it renews every third of one); gone — its lease ran out
 * (it died or lost the database) or it shut down.
 * @returns {{key: 'healthy'|'late'|'gone', label: string, detail: string}}
 */
export function healthOf(m, now) {
  const beat = parseTime(m.last_heartbeat);
  const expires = parseTime(m.expires_at);
  const ago = Number.isNaN(beat) ? '' : agoText(now - beat);
  if (m.health === 'stopped') return { key: 'gone', label: 'Gone', detail: ago ? `shut down ${ago}` : 'shut down' };
  if (m.health !== 'live') return { key: 'gone', label: 'Gone', detail: ago ? `no heartbeat for ${ago.replace(/ ago$/, '')}` : 'no heartbeat' };
  const lease = expires - beat;
  if (lease > 0 && now - beat > lease / 2) return { key: 'late', label: 'Late', detail: `last heartbeat ${ago}` };
  return { key: 'healthy', label: 'Healthy', detail: '' };
}

function agoText(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

export class FleetPanel {
  /**
   * @param {object} o
   * @param {HTMLDialogElement} o.dialog
   * @param {HTMLElement} o.list      the <ul> of daemons
   * @param {HTMLElement} o.summary   one line above the list
   * @param {() => number} o.now      the server's "now" in epoch ms
   * @param {() => Promise<object>} o.fetch fleet.list
   */
  constructor({ dialog, list, summary, now, fetch }) {
    Object.assign(this, { dialog, list, summary, now, fetch });
    this.timer = 0;
    this.refreshes = 0;
    dialog.addEventListener('close', () => this.stop());
  }

  open() {
    if (!this.dialog.open) this.dialog.showModal();
    this.refresh();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
    this.dialog.dataset.polling = 'true';
  }

  stop() {
    clearInterval(this.timer);
    this.timer = 0;
    this.dialog.dataset.polling = 'false';
  }

  async refresh() {
    try {
      const res = await this.fetch();
      if (!this.dialog.open) return;
      this.render(res);
    } catch (err) {
      if (!this.dialog.open) return;
      this.summary.textContent = err && err.message ? `The fleet cannot be listed now: ${err.message}` : 'The fleet cannot be listed now.';
      this.summary.dataset.error = 'true';
    } finally {
      this.refreshes += 1;
      this.dialog.dataset.refreshes = String(this.refreshes);
    }
  }

  render(res) {
    const now = this.now();
    const daemons = (res && res.daemons) || [];
    const counts = { healthy: 0, late: 0, gone: 0 };
    const rows = daemons.map((m) => {
      const h = healthOf(m, now);
      counts[h.key] += 1;
      const self = m.self || m.id === res.self_id;
      const load = Number(m.load) || 0;
      const max = Number(m.max_agents) || 0;
      const profiles = (m.profiles || []).slice().sort();
      return el('li', { class: `daemon ${h.key}${self ? ' self' : ''}`, dataset: { daemonId: m.id, health: h.key, self: self ? 'true' : 'false' } },
        el('div', { class: 'daemon-head' },
          el('span', { class: 'daemon-id', title: m.id, text: m.id }),
          self ? el('span', { class: 'daemon-self', text: 'this daemon' }) : null,
          el('span', { class: `badge daemon-health ${h.key}`, title: h.detail || null, text: h.label })),
        el('div', { class: 'daemon-where muted' },
          el('span', { class: 'daemon-addr', text: m.addr || '' }),
          m.hostname ? el('span', { class: 'daemon-host', text: ` · ${m.hostname}` }) : null,
          h.detail ? el('span', { class: 'daemon-detail', text: ` · ${h.detail}` }) : null),
        el('div', { class: 'daemon-load' },
          max > 0 ? el('meter', { min: '0', max: String(max), value: String(Math.min(load, max)), 'aria-label': 'Agents running' }) : null,
          el('span', { class: 'daemon-load-text', text: max > 0 ? `${load} / ${max} agents` : `${load} agents` })),
        el('div', { class: 'daemon-profiles muted', text: profiles.length ? `Agents: ${profiles.join(', ')}` : 'No agent profiles' }));
    });
    this.list.replaceChildren(...rows);
    const n = daemons.length;
    let line = n === 1 ? '1 daemon' : `${n} daemons`;
    const bad = [counts.late ? `${counts.late} late` : '', counts.gone ? `${counts.gone} gone` : ''].filter(Boolean);
    line += bad.length ? ` · ${bad.join(', ')}` : (n ? ', all healthy' : '');
    this.summary.textContent = line;
    delete this.summary.dataset.error;
  }
}
