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

/** $ is getElementById. */
export const $ = (id) => document.getElementById(id);

/** time parses an RFC 3339 timestamp to epoch ms; NaN when absent or bad. */
export function parseTime(ts) {
  return ts ? Date.parse(ts) : NaN;
}
