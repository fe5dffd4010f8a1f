// Small DOM helpers. Everything the page shows is built from nodes: text goes
// in through text nodes / textContent, never through an HTML parser.

/**
 * el builds an element. props: class, text, dataset (object), and plain
 * attributes; event handlers are refused (attach them with addEventListener)
 * so no string can ever become code. children: nodes, strings (as text),
 * arrays of either; null/undefined/false are skipped.
 */
export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (/^on/i.test(key) || key === 'style' || key === 'srcdoc') {
      throw new Error(`el: refusing attribute ${key}`);
    }
    if (key === 'class') node.className = String(value);
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

/** append adds children (nodes, strings as text, nested arrays) to parent. */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.append(child);
    else parent.append(document.createTextNode(String(child)));
  }
  return parent;
}

/**
 * replaceWith replaces parent's children like el() builds them: null,
 * undefined and false are skipped (Node.replaceChildren would show "null").
 */
export function replaceWith(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** $ is getElementById. */
export const $ = (id) => document.getElementById(id);

/** time parses an RFC 3339 timestamp to epoch ms; NaN when absent or bad. */
export function parseTime(ts) {
  return ts ? Date.parse(ts) : NaN;
}

/**
 * copyText puts text on the clipboard (the Clipboard API where the page may
 * use it, else a hidden textarea and execCommand); it resolves to success.
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the old way
  }
  const ta = el('textarea', { class: 'visually-hidden', 'aria-hidden': 'true' });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/**
 * copyButton is a small "Copy" button that copies getText() and says so. Its
 * visible label comes from CSS (data-label), so it adds nothing to the
 * textContent of the message it sits in; aria-label names it.
 */
export function copyButton(getText, label = 'Copy') {
  const b = el('button', { type: 'button', class: 'copy-button', 'aria-label': label, dataset: { label: 'Copy' } });
  b.addEventListener('click', async () => {
    const ok = await copyText(String(getText()));
    b.dataset.label = ok ? 'Copied' : 'Copy failed';
    b.dataset.copied = ok ? 'true' : 'false';
    setTimeout(() => { b.dataset.label = 'Copy'; delete b.dataset.copied; }, 1500);
  });
  return b;
}
