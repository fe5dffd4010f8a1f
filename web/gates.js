// GatePanel: the provider overload gates (gate.list, gate.updated) as a small
// sidebar region. It lists only gates that are open — waiting for the
// provider to recover — and is hidden while every provider is healthy. The
// countdown is computed from next_probe_at, never from a delay.

import { el, parseTime } from './dom.js';
import { formatRemaining } from './status.js';

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export class GatePanel {
  /**
   * @param {object} o
   * @param {HTMLElement} o.region   the panel (hidden while nothing is open)
   * @param {HTMLElement} o.list     the <ul> of open gates
   * @param {HTMLElement} o.announce a role=status node outside the panel
   * @param {() => number} o.now     the server's "now" in epoch ms
   * @param {() => Promise<object>} o.fetch gate.list
   */
  constructor({ region, list, announce, now, fetch }) {
    this.region = region;
    this.list = list;
    this.announce = announce;
    this.now = now;
    this.fetch = fetch;
    this.gates = new Map(); // key → gate
    this.enabled = true;
    this.tick = 0;
    this.shownKeys = ''; // open gates last announced
    document.addEventListener('visibilitychange', () => { if (!document.hidden) this.render(); });
  }

  /** refresh replaces everything with a fresh gate.list (after a (re)connect). */
  async refresh() {
    const res = await this.fetch();
    this.enabled = res.enabled !== false;
    const fresh = new Map();
    for (const g of res.gates || []) {
      if (!g || !g.key) continue;
      const known = this.gates.get(g.key);
      // A gate.updated that overtook this answer is newer: keep it.
      fresh.set(g.key, known && parseTime(known.updated_at) > parseTime(g.updated_at) ? known : g);
    }
    this.gates = fresh;
    this.render();
  }

  /** update applies one gate.updated payload. */
  update(gate) {
    if (!gate || !gate.key) return;
    const known = this.gates.get(gate.key);
    if (known && parseTime(known.updated_at) > parseTime(gate.updated_at)) return; // stale
    this.gates.set(gate.key, gate);
    this.render(); // the daemon sends coalesced count changes within a second
  }

  open() {
    if (!this.enabled) return [];
    return [...this.gates.values()].filter((g) => g.state === 'open').sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  render() {
    const open = this.open();
    this.list.replaceChildren(...open.map((g) => this.item(g)));
    this.region.hidden = open.length === 0;
    this.say(open);
    this.schedule();
  }

  item(g) {
    const countdown = el('span', { class: 'gate-when' });
    const li = el('li', { class: 'gate', dataset: { key: g.key, state: g.probing ? 'probing' : 'open' } },
      el('div', { class: 'gate-head' },
        el('span', { class: 'gate-key', text: g.key }),
        el('span', { class: 'badge gate-badge', text: 'Overloaded' })),
      el('p', { class: 'gate-status' }, countdown),
      el('p', { class: 'gate-facts' },
        el('span', { class: 'gate-waiting', dataset: { count: String(Number(g.waiting) || 0) }, text: `${plural(Number(g.waiting) || 0, 'session', 'sessions')} waiting` }),
        ' · ',
        el('span', { class: 'gate-probes', dataset: { count: String(Number(g.probes_sent) || 0) }, text: `${plural(Number(g.probes_sent) || 0, 'check', 'checks')} so far` })));
    li.countdown = countdown;
    li.gate = g;
    this.tickItem(li);
    return li;
  }

  tickItem(li) {
    const g = li.gate;
    const at = parseTime(g.next_probe_at);
    const secs = g.probing || Number.isNaN(at) ? 0 : Math.max(0, Math.ceil((at - this.now()) / 1000));
    li.countdown.dataset.remaining = String(secs);
    li.countdown.textContent = secs > 0 ? `Next check in ${formatRemaining(secs)}` : 'Checking now…';
  }

  // Screen readers hear when a provider goes down or recovers, not every tick.
  say(open) {
    const keys = open.map((g) => g.key).join(',');
    if (keys === this.shownKeys) return;
    const before = new Set(this.shownKeys ? this.shownKeys.split(',') : []);
    const now = new Set(open.map((g) => g.key));
    const down = [...now].filter((k) => !before.has(k));
    const up = [...before].filter((k) => !now.has(k));
    this.shownKeys = keys;
    const parts = [];
    if (down.length) parts.push(`Provider ${down.join(', ')} overloaded; sessions wait for it to recover.`);
    if (up.length) parts.push(`Provider ${up.join(', ')} recovered.`);
    this.announce.textContent = parts.join(' ');
  }

  // One timer, aligned to the next whole second of the nearest countdown.
  schedule() {
    clearTimeout(this.tick);
    const items = [...this.list.children];
    if (!items.length) return;
    let wait = 1000;
    for (const li of items) {
      const left = parseTime(li.gate.next_probe_at) - this.now();
      if (left > 0) wait = Math.min(wait, (left % 1000) || 1000);
    }
    this.tick = setTimeout(() => {
      for (const li of this.list.children) this.tickItem(li);
      this.schedule();
    }, wait + 5);
  }
}
