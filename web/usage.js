// Usage the agent reports (ACP usage_update and the prompt response's
// usage), as the daemon stores it: one quiet status message per turn with
// metadata.kind "usage". Shown small under the turn, and summed per task in
// the chat header. Nothing is shown when the agent reports nothing.

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** isUsage tells a usage status message. */
export function isUsage(m) {
  return !!m && m.role === 'status' && !!m.metadata && m.metadata.kind === 'usage';
}

/** isDivider tells the "started fresh" divider. */
export function isDivider(m) {
  return !!m && m.role === 'status' && !!m.metadata && m.metadata.kind === 'fresh_start';
}

function tokens(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1)}k`;
  return String(n);
}

function money(amount, currency) {
  if (!(amount > 0)) return '';
  try {
    return new Intl.NumberFormat([], { style: 'currency', currency: currency || 'USD', maximumFractionDigits: amount < 1 ? 4 : 2 }).format(amount);
  } catch {
    return `${amount.toFixed(4)} ${currency || ''}`.trim();
  }
}

/** usageOf reads one usage message: {input, output, total, cost, currency, used, size}. */
export function usageOf(m) {
  const md = m.metadata || {};
  const input = num(md.input_tokens);
  const output = num(md.output_tokens);
  return {
    input, output, total: num(md.total_tokens) || input + output,
    cost: num(md.cost_amount), currency: md.cost_currency || '',
    used: num(md.context_used), size: num(md.context_size),
  };
}

/**
 * usageTotal sums a session's usage messages: tokens add up; the agent's
 * cost is cumulative per agent session, so each turn adds what it grew by
 * (a drop means a new agent session, e.g. after Start fresh).
 */
export function usageTotal(model) {
  if (!model) return null;
  const msgs = [...model.messages.values()].filter(isUsage).sort((a, b) => (a.seq || 0) - (b.seq || 0));
  if (!msgs.length) return null;
  const sum = { input: 0, output: 0, total: 0, cost: 0, currency: '', turns: msgs.length };
  let last = 0;
  for (const m of msgs) {
    const u = usageOf(m);
    sum.input += u.input;
    sum.output += u.output;
    sum.total += u.total;
    if (u.cost > 0) {
      sum.cost += u.cost >= last ? u.cost - last : u.cost;
      last = u.cost;
      sum.currency = u.currency || sum.currency;
    }
  }
  return sum;
}

/** usageLine is the short text for a total (or one turn's usage); '' when empty. */
export function usageLine(u) {
  if (!u || !(u.total > 0 || u.cost > 0)) return '';
  const bits = [];
  if (u.total > 0) bits.push(`${tokens(u.total)} tokens`);
  const c = money(u.cost, u.currency);
  if (c) bits.push(c);
  return bits.join(' · ');
}

/** turnUsageText describes one turn's usage message, for the chat. */
export function turnUsageText(m) {
  const u = usageOf(m);
  const bits = [];
  if (u.total > 0) bits.push(`${tokens(u.total)} tokens (${tokens(u.input)} in, ${tokens(u.output)} out)`);
  const c = money(u.cost, u.currency);
  if (c) bits.push(`${c} so far`);
  if (u.size > 0) bits.push(`context ${Math.round((100 * u.used) / u.size)}% full`);
  return bits.join(' · ');
}
