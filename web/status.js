// StatusView pins the session's two "what happens next" messages above the
// prompt box: the amber retry card (a parked automatic retry) and the red
// recovery banner (a human decides). Both are ordinary status messages of
// the session, so they come back with a reload or a second tab; the countdown
// is always computed from the notice's retry_at, never from a delay.

import { el, parseTime, copyButton, replaceWith } from './dom.js';

const FAMILY_LABELS = {
  overloaded: 'Provider overloaded',
  capacity: 'Model at capacity',
  unavailable: 'Provider unavailable',
  server_error: 'Provider error',
  network: 'Connection to the provider dropped',
  transport_lost: 'Connection lost',
  rate_limited: 'Rate limited by the provider',
  in_progress: 'Agent is retrying',
  quota: 'Usage limit reached',
  billing: 'Billing problem',
  auth: 'Not signed in',
  permission: 'Permission denied',
  model: 'Model not available',
  config: 'Setup problem',
  context_overflow: 'Prompt too long',
  invalid_request: 'Request rejected',
  resume_corrupted: 'Conversation history broken',
};

// By metadata.reason; other reasons take the failure family's label.
const BANNER_TITLES = {
  retry_cancelled: 'Paused',
  cancelled: 'Paused',
  interrupted: 'Turn interrupted',
  interrupted_retry: 'Retry interrupted',
  exhausted: 'Retries used up',
};

// What to fix, by failure family, for failures a retry cannot cure
// (class user_action or terminal). fresh: Start fresh is the way out, so it
// is the main button; otherwise the fix happens outside this page and Resume
// comes after it.
const FIXES = {
  auth: { fix: 'Sign the agent in again: run its login (for Claude Code, `claude /login`) or give the daemon a valid API key, then resume.' },
  billing: { fix: 'Check the provider account\'s billing or credits, then resume.' },
  permission: { fix: 'The account or key lacks access to this model or resource. Grant access, or choose another model in the agent\'s profile, then resume.' },
  model: { fix: 'The model is not available. Choose another model in the agent\'s profile, then resume.' },
  config: { fix: 'The agent is not set up right (see Details). Fix its installation or profile, then resume.' },
  context_overflow: { fix: 'The conversation is now too long for the model; resuming sends it again. Start fresh: a new session begins from the task\'s prompt.', fresh: true },
  invalid_request: { fix: 'The provider rejects this request as it is (see Details); resuming sends it again. Start fresh, or send a different message.', fresh: true },
  resume_corrupted: { fix: 'The saved conversation cannot be loaded again. Start fresh: a new session begins from the task\'s prompt.', fresh: true },
};
const FIX_BY_CLASS = {
  user_action: { fix: 'A retry cannot fix this. Fix the cause shown in Details, then resume.' },
  terminal: { fix: 'Resuming would fail the same way. Start fresh: a new session begins from the task\'s prompt.', fresh: true },
};

/** fixFor returns {fix, fresh} for a banner's metadata, or null. */
export function fixFor(md) {
  if (!md || (md.class !== 'user_action' && md.class !== 'terminal')) return null;
  return FIXES[md.failure_code] || FIX_BY_CLASS[md.class];
}

// A Resume that brings the same banner back within this long says so.
const AGAIN_WINDOW_MS = 5 * 60_000;

/** formatRemaining: 7 → "7s", 75 → "1m 15s", 3700 → "1h 2m". */
export function formatRemaining(secs) {
  if (secs < 60) return `${secs}s`;
  const m = Math.floor(secs / 60);
  if (m < 60) return `${m}m ${String(secs % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

function localTime(ms, withDate) {
  const opts = { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' };
  if (withDate) Object.assign(opts, { weekday: 'short', month: 'short', day: 'numeric' });
  return new Intl.DateTimeFormat(undefined, opts).format(new Date(ms));
}

function sameDay(a, b) {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

export class StatusView {
  /**
   * @param {object} o
   * @param {HTMLElement} o.card    the retry card (role=status, aria-live=polite)
   * @param {HTMLElement} o.banner  the recovery banner
   * @param {(action: object, button: HTMLButtonElement) => void} o.onAction
   * @param {() => number} o.now    the server's "now" in epoch ms (local clock + skew)
   */
  constructor({ card, banner, onAction, now }) {
    this.card = card;
    this.banner = banner;
    this.onAction = onAction;
    this.now = now;
    this.cardKey = '';
    this.bannerKey = '';
    this.notice = null;
    this.recovery = null;
    this.tick = 0;
    this.offline = false;
    this.sessionId = '';
    this.resumed = null; // {bannerId, code, title, at}: the last Resume/Start fresh pressed here
    // A hidden tab's timers are throttled; catch up the moment it shows.
    document.addEventListener('visibilitychange', () => {
      if (document.hidden) return;
      this.tickCard();
      this.tickBanner();
      this.schedule();
    });
  }

  /** update shows what model holds; model null clears both. */
  update(model) {
    const sid = model ? model.sessionId : '';
    if (sid !== this.sessionId) {
      this.sessionId = sid;
      this.resumed = null;
    }
    const notice = model ? model.latestNotice('retry_notice') : null;
    const recovery = model ? model.latestNotice('recovery') : null;
    // Hidden while the retry itself runs: the chat shows that attempt live.
    const showCard = !!notice && notice.metadata.retrying !== false && !model.active;
    this.notice = showCard ? notice : null;
    this.recovery = recovery;

    const cardKey = showCard ? JSON.stringify([notice.id, notice.text, notice.metadata, notice.actions, notice.updated_at, this.offline]) : '';
    if (cardKey !== this.cardKey) {
      this.cardKey = cardKey;
      if (showCard) this.drawCard(notice);
      else this.card.replaceChildren();
      this.card.hidden = !showCard;
    }
    const bannerKey = recovery ? JSON.stringify([recovery.id, recovery.text, recovery.metadata, recovery.actions, this.offline]) : '';
    if (bannerKey !== this.bannerKey) {
      this.bannerKey = bannerKey;
      if (recovery) this.drawBanner(recovery);
      else this.banner.replaceChildren();
      this.banner.hidden = !recovery;
    }
    this.schedule();
  }

  /**
   * setOffline: with the daemon unreachable the card cannot count down to
   * anything this page can see happen, and no button can reach the daemon.
   */
  setOffline(offline) {
    if (offline === this.offline) return;
    this.offline = offline;
    this.card.classList.toggle('offline', offline);
    this.banner.classList.toggle('offline', offline);
    for (const b of this.card.querySelectorAll('button')) b.disabled = offline;
    for (const b of this.banner.querySelectorAll('.banner-actions button')) b.disabled = offline;
    this.tickCard();
  }

  // ---- the retry card --------------------------------------------------------

  drawCard(m) {
    const md = m.metadata || {};
    const retryAt = parseTime(md.retry_at);
    const [lead] = String(m.text || '').split(' — ');
    const reason = lead && lead !== m.text ? lead : FAMILY_LABELS[md.failure_code] || 'The agent failed';
    const attempt = Number(md.attempt) || 0;
    const max = Number(md.max_attempts) || 0;
    // Waiting on a provider-wide overload gate, retry_at is the next check.
    const gate = md.gate && typeof md.gate === 'object' ? md.gate : null;
    this.probing = !!gate && gate.state === 'open';
    const waiting = gate ? Number(md.waiting) || 0 : 0;

    this.countdown = el('span', { class: 'countdown', 'aria-live': 'off' });
    this.progress = el('span', { class: 'retry-progress-bar' });
    const at = Number.isNaN(retryAt) ? null
      : el('time', { datetime: md.retry_at, text: new Date(retryAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) });
    const cancel = (m.actions || []).find((a) => a.payload && a.payload.action === 'cancel_retry') || (m.actions || [])[0];
    // Every waiting notice can be sent at once (through an open gate, as its probe).
    const now = (m.actions || []).find((a) => a.payload && a.payload.action === 'retry_now');

    replaceWith(this.card,
      el('div', { class: 'retry-icon', 'aria-hidden': 'true' }),
      el('div', { class: 'retry-main' },
        el('p', { class: 'retry-reason', text: reason }),
        el('p', { class: 'retry-when' }, this.countdown, at ? el('span', { class: 'retry-at' }, ' · at ', at) : null),
        attempt && max || waiting > 1 ? el('p', { class: 'retry-attempt' },
          attempt && max ? `Attempt ${attempt} of ${max}` : null,
          waiting > 1 ? `${attempt && max ? ' · ' : ''}${waiting} sessions waiting for this provider` : null) : null,
        el('span', { class: 'retry-progress', 'aria-hidden': 'true' }, this.progress),
      ),
      now ? this.button(now, 'secondary retry-now', 'Sending…') : null,
      cancel ? this.button(cancel, 'secondary retry-cancel', 'Cancelling…') : null,
    );
    this.offlineNote = el('p', { class: 'retry-offline', hidden: !this.offline },
      'The daemon is unreachable. The retry is the daemon\'s job: it goes ahead if the daemon is running, and this card shows the outcome as soon as the page reconnects.');
    this.card.querySelector('.retry-main').append(this.offlineNote);
    for (const b of this.card.querySelectorAll('button')) b.disabled = this.offline;
    this.card.dataset.retryAt = md.retry_at || '';
    this.card.dataset.messageId = m.id;
    this.tickCard();
  }

  tickCard() {
    const m = this.notice;
    if (!m || !this.countdown) return;
    const retryAt = parseTime(m.metadata.retry_at);
    if (Number.isNaN(retryAt)) {
      this.countdown.textContent = 'Retrying soon';
      return;
    }
    const now = this.now();
    const secs = Math.max(0, Math.ceil((retryAt - now) / 1000));
    this.countdown.dataset.remaining = String(secs);
    if (this.offlineNote) this.offlineNote.hidden = !this.offline;
    if (this.offline) {
      this.countdown.textContent = secs > 0 ? `Retry due in ${formatRemaining(secs)}` : 'Retry due now';
      return;
    }
    this.countdown.textContent = this.probing
      ? (secs > 0 ? `Next check in ${formatRemaining(secs)}` : 'Checking now…')
      : (secs > 0 ? `Retrying in ${formatRemaining(secs)}` : 'Retrying now…');
    const from = parseTime(m.updated_at || m.created_at);
    if (!Number.isNaN(from) && retryAt > from) {
      const done = Math.min(1, Math.max(0, (now - from) / (retryAt - from)));
      this.progress.style.transform = `scaleX(${done.toFixed(3)})`;
    }
  }

  // ---- the recovery banner ---------------------------------------------------

  drawBanner(m) {
    const md = m.metadata || {};
    const resetAt = md.class === 'wait_for_reset' ? parseTime(md.reset_at) : NaN;
    let text = String(m.text || '');
    if (!Number.isNaN(resetAt)) text = text.replace(/\s*It resets at [^.]*UTC\.\s*$/, ''); // shown below, in local time
    const title = BANNER_TITLES[md.reason] || FAMILY_LABELS[md.failure_code] || 'The agent stopped';
    // A pause the user chose is not a failure: calm, not red.
    const calm = md.reason === 'retry_cancelled' || md.reason === 'cancelled';
    const fix = fixFor(md);

    this.resetNode = null;
    let reset = null;
    if (!Number.isNaN(resetAt)) {
      this.resetNode = el('span', { class: 'reset-in' });
      reset = el('p', { class: 'banner-reset' }, 'Resets at ',
        el('time', { datetime: md.reset_at, text: localTime(resetAt, !sameDay(resetAt, Date.now())) }), ' ', this.resetNode);
    }

    // Resume pressed here, and the same session failed again: say so (kept
    // on this banner's redraws).
    const r = this.resumed;
    if (r && r.bannerId !== m.id) {
      this.resumed = null;
      let againText = '';
      if (Date.now() - r.at < AGAIN_WINDOW_MS && !calm) {
        const at = new Date(r.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
        againText = r.code && r.code === md.failure_code
          ? `${r.what} at ${at} did not help: it failed again the same way.${fix && !fix.fresh ? ' Fix the cause first.' : ''}`
          : `${r.what} at ${at} did not help: it stopped again (${title.toLowerCase()}).`;
      }
      this.again = { id: m.id, text: againText };
    }
    const again = this.again && this.again.id === m.id && this.again.text
      ? el('p', { class: 'banner-again', text: this.again.text }) : null;

    const facts = [];
    if (md.failure_code) facts.push(['Code', md.failure_code]);
    if (md.class) facts.push(['Class', String(md.class).replace(/_/g, ' ')]);
    if (md.rule_id) facts.push(['Rule', md.rule_id]);
    // The error itself (sanitised by the daemon); older banners have only the excerpt.
    const errorText = String(md.error || md.excerpt || '');
    let details = null;
    if (facts.length || errorText) {
      const copyText = [...facts.map(([k, v]) => `${k}: ${v}`), errorText].filter(Boolean).join('\n');
      details = el('details', { class: 'banner-details' },
        el('summary', { text: 'Details' }),
        facts.length ? el('dl', {}, facts.map(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])) : null,
        errorText ? el('pre', { class: 'excerpt', text: errorText }) : null,
        copyButton(() => copyText, 'Copy details'));
    }

    let actions = (m.actions || []).slice();
    if (fix && fix.fresh) {
      // Start fresh is the way out: first, and the main button.
      actions.sort((a, b) => (isFresh(b) ? 1 : 0) - (isFresh(a) ? 1 : 0));
    }
    const buttons = actions.map((a, i) => {
      let label = a.label;
      if (fix && !isFresh(a)) label = fix.fresh ? 'Resume anyway' : 'Resume after fixing';
      const b = this.button({ ...a, label }, i === 0 ? 'primary' : 'secondary',
        isFresh(a) ? 'Starting…' : 'Resuming…', () => {
          this.resumed = { bannerId: m.id, code: md.failure_code || '', at: Date.now(), what: isFresh(a) ? 'Start fresh' : 'Resume' };
        });
      b.disabled = this.offline;
      return b;
    });

    this.banner.classList.toggle('calm', calm);
    this.banner.classList.toggle('needs-fix', !!fix);
    replaceWith(this.banner,
      el('div', { class: 'banner-icon', 'aria-hidden': 'true', text: calm ? '' : '!' }), // calm: a pause sign in CSS
      el('div', { class: 'banner-main' },
        el('h3', { class: 'banner-title', text: title }),
        again,
        el('p', { class: 'banner-reason', text }),
        fix ? el('p', { class: 'banner-fix' }, el('strong', { text: 'To fix: ' }), fix.fix) : null,
        reset,
        details,
        buttons.length ? el('div', { class: 'banner-actions' }, buttons) : null,
      ),
    );
    this.banner.dataset.messageId = m.id;
    this.banner.dataset.reason = md.reason || '';
    this.tickBanner();
  }

  tickBanner() {
    const m = this.recovery;
    if (!m || !this.resetNode) return;
    const resetAt = parseTime(m.metadata.reset_at);
    const mins = Math.ceil((resetAt - this.now()) / 60000);
    this.resetNode.textContent = mins > 0 ? `(in ${formatRemaining(mins * 60).replace(/ 00s$/, '')})` : '(now)';
  }

  // ---- shared ----------------------------------------------------------------

  button(action, className, busyLabel, onPress) {
    const b = el('button', { type: 'button', class: className, text: action.label || action.id || 'OK' });
    const act = action.payload && action.payload.action;
    if (act) b.dataset.action = act;
    b.addEventListener('click', () => {
      if (b.disabled) return;
      b.disabled = true;
      b.setAttribute('aria-busy', 'true');
      const label = b.textContent;
      b.textContent = busyLabel;
      if (onPress) onPress();
      const restore = () => {
        b.disabled = false;
        b.removeAttribute('aria-busy');
        b.textContent = label;
      };
      // On success the message is replaced or removed; if it is not (the
      // daemon had nothing to do), the button comes back after a while.
      Promise.resolve(this.onAction(action)).then(() => setTimeout(restore, 4000), restore);
    });
    return b;
  }

  // One timer, aligned to the next whole second of the countdown, so every
  // tab flips its number at the same moment.
  schedule() {
    clearTimeout(this.tick);
    if (!this.notice && !this.resetNode) return;
    let wait = 1000;
    if (this.notice) {
      const retryAt = parseTime(this.notice.metadata.retry_at);
      const left = retryAt - this.now();
      if (left > 0) wait = (left % 1000) || 1000;
    }
    this.tick = setTimeout(() => {
      this.tickCard();
      this.tickBanner();
      this.schedule();
    }, wait + 5);
  }
}

function isFresh(a) {
  return !!a && !!a.payload && a.payload.action === 'fresh_start';
}
