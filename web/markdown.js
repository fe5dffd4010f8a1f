// A small, safe Markdown renderer for agent output. It builds DOM nodes
// directly — there is no HTML parser anywhere on this path, so agent text such
// as <img src=x onerror=…> stays text. Supported: paragraphs (single newlines
// kept as line breaks), fenced code blocks, headings, block quotes, ordered and
// unordered (nested) lists, tables (GitHub style), rules, inline code, bold,
// italic, strike-through, and links whose URL is http(s) only (opened with
// rel="noopener noreferrer"). Code blocks carry a Copy button.
// Anything else is shown as the text it is.

import { el, copyButton } from './dom.js';

// Texts longer than this are shown as plain text: the inline scanner is
// simple, and a pathological megabyte of asterisks must not freeze the tab.
const MAX_MARKDOWN = 200_000;
const MAX_BLOCK_DEPTH = 6; // nested quotes / lists
const MAX_INLINE_DEPTH = 6; // nested emphasis / link labels

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|[ \t]*)$/;
const BLANK = /^\s*$/;
const TABLE_DELIM = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const MAX_TABLE_COLUMNS = 64;
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!~<>|"']/;

/** renderMarkdown returns a DocumentFragment for text. */
export function renderMarkdown(text) {
  const src = String(text ?? '');
  const frag = document.createDocumentFragment();
  if (src.length > MAX_MARKDOWN) {
    frag.append(el('p', { class: 'md-plain', text: src }));
    return frag;
  }
  renderBlocks(src.replace(/\r\n?/g, '\n').split('\n'), frag, 0);
  return frag;
}

// fenceOpen reads an opening code fence: its marker and language, or null.
// A backtick fence's info string has no backticks ("```x```" is inline code).
function fenceOpen(line) {
  const m = FENCE.exec(line);
  if (!m || (m[1][0] === '`' && m[2].includes('`'))) return null;
  const lang = /^\s*([\w#+.-]*)/.exec(m[2])[1];
  return { fence: m[1], lang };
}

function startsBlock(line) {
  return !!fenceOpen(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
}

function leading(line) {
  const m = /^ */.exec(line.replace(/\t/g, '    '));
  return m[0].length;
}

function renderBlocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (BLANK.test(line)) { i++; continue; }
    let m;
    const fence = fenceOpen(line);
    if (fence) {
      i = renderFence(lines, i, fence, parent);
      continue;
    }
    if ((m = HEADING.exec(line)) && m[2] !== undefined) {
      const level = Math.min(6, m[1].length + 2); // the page owns h1/h2
      const h = el(`h${level}`, { class: 'md-heading' });
      renderInline(m[2], h, 0);
      parent.append(h);
      i++;
      continue;
    }
    if (tableAt(lines, i)) {
      i = renderTable(lines, i, parent);
      continue;
    }
    if (RULE.test(line)) {
      parent.append(el('hr'));
      i++;
      continue;
    }
    if (depth < MAX_BLOCK_DEPTH && QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) { inner.push(m[1]); i++; }
      const quote = el('blockquote');
      renderBlocks(inner, quote, depth + 1);
      parent.append(quote);
      continue;
    }
    if (depth < MAX_BLOCK_DEPTH && ITEM.test(line)) {
      i = renderList(lines, i, parent, depth);
      continue;
    }
    // A paragraph: this line, then every following line up to a blank line
    // or the start of another block.
    const p = el('p');
    renderInline(line.trim(), p, 0);
    i++;
    while (i < lines.length && !BLANK.test(lines[i]) && !startsBlock(lines[i]) && !tableAt(lines, i)) {
      p.append(el('br'));
      renderInline(lines[i].trim(), p, 0);
      i++;
    }
    parent.append(p);
  }
}

// splitRow splits a table row into its cells ("\|" is a literal bar).
function splitRow(line) {
  let t = line.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
  const cells = [];
  let cur = '';
  for (let k = 0; k < t.length; k++) {
    if (t[k] === '\\' && t[k + 1] === '|') { cur += '|'; k++; continue; }
    if (t[k] === '|') { cells.push(cur.trim()); cur = ''; continue; }
    cur += t[k];
  }
  cells.push(cur.trim());
  return cells;
}

// tableAt: lines[i] is a header row with a delimiter row under it, of as
// many columns.
function tableAt(lines, i) {
  const head = lines[i];
  const delim = lines[i + 1];
  if (delim === undefined || !head.includes('|') || !TABLE_DELIM.test(delim) || !delim.includes('-')) return false;
  if (!delim.includes('|') && !head.trim().startsWith('|')) return false;
  const n = splitRow(head).length;
  return n <= MAX_TABLE_COLUMNS && n === splitRow(delim).length;
}

function renderTable(lines, i, parent) {
  const heads = splitRow(lines[i]);
  const aligns = splitRow(lines[i + 1]).map((d) => {
    const left = d.startsWith(':');
    const right = d.endsWith(':');
    if (left && right) return 'center';
    if (right) return 'right';
    return left ? 'left' : '';
  });
  const cell = (tag, text, k) => {
    const c = el(tag, { class: aligns[k] ? `align-${aligns[k]}` : null });
    renderInline(text || '', c, 0);
    return c;
  };
  const thead = el('thead', {}, el('tr', {}, heads.map((h, k) => cell('th', h, k))));
  const tbody = el('tbody');
  i += 2;
  while (i < lines.length && !BLANK.test(lines[i]) && lines[i].includes('|') && !startsBlock(lines[i])) {
    const cells = splitRow(lines[i]);
    tbody.append(el('tr', {}, heads.map((_, k) => cell('td', cells[k], k))));
    i++;
  }
  parent.append(el('div', { class: 'md-table' }, el('table', {}, thead, tbody.children.length ? tbody : null)));
  return i;
}

function renderFence(lines, i, { fence, lang }, parent) {
  const body = [];
  i++;
  const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
  while (i < lines.length && !closing.test(lines[i])) body.push(lines[i++]);
  i++; // the closing fence; an unclosed fence (still streaming) runs to the end
  const code = el('code', { text: body.join('\n') });
  if (lang) code.dataset.lang = lang;
  parent.append(el('div', { class: 'md-codeblock' }, el('pre', { class: 'md-code' }, code),
    copyButton(() => code.textContent, 'Copy code')));
  return i;
}

function renderList(lines, i, parent, depth) {
  const first = ITEM.exec(lines[i]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = el(ordered ? 'ol' : 'ul');
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) list.setAttribute('start', String(start));
  }
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const contentIndent = indent + m[2].length + 1;
    const body = [m[3] || ''];
    i++;
    while (i < lines.length) {
      const line = lines[i];
      if (BLANK.test(line)) {
        // A blank line continues the item only if indented content follows.
        let j = i + 1;
        while (j < lines.length && BLANK.test(lines[j])) j++;
        if (j < lines.length && leading(lines[j]) > indent && !isSibling(lines[j], indent)) {
          while (i < j) { body.push(''); i++; }
          continue;
        }
        break;
      }
      const lead = leading(line);
      if (ITEM.test(line) && lead <= indent) break; // a sibling, or an outer item
      if (lead > indent) {
        body.push(line.replace(/\t/g, '    ').slice(Math.min(lead, contentIndent)));
        i++;
        continue;
      }
      if (startsBlock(line)) break;
      body.push(line.trim()); // a lazy continuation of the item's text
      i++;
    }
    const li = el('li');
    const task = /^\[([ xX])\]\s+/.exec(body[0]);
    if (task) {
      body[0] = body[0].slice(task[0].length);
      li.className = 'md-task';
      li.append(el('span', { class: 'md-check', 'aria-hidden': 'true', text: task[1] === ' ' ? '☐ ' : '☑ ' }));
    }
    renderBlocks(body, li, depth + 1);
    list.append(li);
  }
  parent.append(list);
  return i;
}

function isSibling(line, indent) {
  const m = ITEM.exec(line);
  return !!m && m[1].length <= indent;
}

// ---- inline ---------------------------------------------------------------

function runLength(src, i, ch) {
  let n = 0;
  while (src[i + n] === ch) n++;
  return n;
}

const isSpace = (c) => c === undefined || /\s/.test(c);
const isWord = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/**
 * renderInline appends the inline content of one line of text to parent.
 * noLinks is set inside a link label (links do not nest).
 */
function renderInline(src, parent, depth, noLinks = false) {
  let buf = '';
  const flush = () => {
    if (buf) parent.append(document.createTextNode(buf));
    buf = '';
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '\\' && i + 1 < src.length && ESCAPABLE.test(src[i + 1])) {
      buf += src[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      const n = runLength(src, i, '`');
      const end = findCodeEnd(src, i + n, n);
      if (end < 0) { buf += '`'.repeat(n); i += n; continue; }
      let code = src.slice(i + n, end);
      if (code.length > 1 && code.startsWith(' ') && code.endsWith(' ') && code.trim()) code = code.slice(1, -1);
      flush();
      parent.append(el('code', { text: code }));
      i = end + n;
      continue;
    }
    if (depth < MAX_INLINE_DEPTH && !noLinks) {
      if (c === '[' || (c === '!' && src[i + 1] === '[')) {
        const link = parseLink(src, i);
        if (link) {
          flush();
          appendLink(parent, link, src.slice(i, link.end), depth);
          i = link.end;
          continue;
        }
      }
      if (c === '<') {
        const m = /^<(https?:\/\/[^\s<>]+)>/i.exec(src.slice(i));
        const href = m && safeURL(m[1]);
        if (href) {
          flush();
          parent.append(anchor(href, m[1]));
          i += m[0].length;
          continue;
        }
      }
      if ((c === 'h' || c === 'H') && !isWord(src[i - 1])) {
        const m = /^https?:\/\/[^\s<>"'`]+/i.exec(src.slice(i));
        if (m) {
          const url = m[0].replace(/[.,;:!?'")\]}*_~]+$/, '');
          const href = safeURL(url);
          if (href) {
            flush();
            parent.append(anchor(href, url));
            i += url.length;
            continue;
          }
        }
      }
    }
    if (depth < MAX_INLINE_DEPTH && (c === '*' || c === '_' || c === '~')) {
      const run = runLength(src, i, c);
      const n = c === '~' || run === 2 ? 2 : 1; // *** opens <em><strong>
      const opensOK = (c !== '~' || run === 2) && !isSpace(src[i + run]) && (c !== '_' || !isWord(src[i - 1]));
      const end = opensOK ? findCloser(src, i + n, c, n) : -1;
      if (end > i + n) {
        flush();
        const tag = c === '~' ? 'del' : n === 2 ? 'strong' : 'em';
        const node = el(tag);
        renderInline(src.slice(i + n, end), node, depth + 1, noLinks);
        parent.append(node);
        i = end + n;
        continue;
      }
      buf += c.repeat(run);
      i += run;
      continue;
    }
    buf += c;
    i++;
  }
  flush();
}

function findCodeEnd(src, from, n) {
  let j = src.indexOf('`'.repeat(n), from);
  while (j >= 0) {
    const run = runLength(src, j, '`');
    if (run === n) return j;
    j = src.indexOf('`'.repeat(n), j + run);
  }
  return -1;
}

// escaped reports whether src[j] follows an odd number of backslashes.
function escaped(src, j) {
  let n = 0;
  while (src[j - 1 - n] === '\\') n++;
  return n % 2 === 1;
}

// findCloser finds a closing delimiter of n chars: not escaped, not preceded
// by a space, and for "_" not followed by a letter (snake_case is not
// emphasis).
function findCloser(src, from, ch, n) {
  let j = src.indexOf(ch, from);
  while (j >= 0) {
    if (escaped(src, j)) {
      j = src.indexOf(ch, j + 1);
      continue;
    }
    const run = runLength(src, j, ch);
    const fits = n === 1 ? run === 1 || run >= 3 : run >= 2;
    if (fits && !isSpace(src[j - 1]) && (ch !== '_' || !isWord(src[j + run]))) {
      return n === 1 && run >= 3 ? j + run - 1 : j;
    }
    j = src.indexOf(ch, j + run);
  }
  return -1;
}

// parseLink reads [label](url "title") or ![alt](url) starting at i.
function parseLink(src, i) {
  const image = src[i] === '!';
  const open = image ? i + 1 : i;
  let depth = 0;
  let close = -1;
  for (let j = open; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') { j++; continue; }
    if (c === '[') depth++;
    else if (c === ']' && --depth === 0) { close = j; break; }
  }
  if (close < 0 || src[close + 1] !== '(') return null;
  depth = 0;
  let end = -1;
  for (let j = close + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') { j++; continue; }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) { end = j; break; }
  }
  if (end < 0) return null;
  let target = src.slice(close + 2, end).trim();
  const titled = /^(\S+)\s+(?:"[^"]*"|'[^']*')$/.exec(target);
  if (titled) target = titled[1];
  if (target.startsWith('<') && target.endsWith('>')) target = target.slice(1, -1);
  return { image, label: src.slice(open + 1, close), url: target, end: end + 1 };
}

function appendLink(parent, link, source, depth) {
  const href = safeURL(link.url);
  if (!href) {
    // Not an http(s) link (javascript:, data:, relative…): show it as written.
    parent.append(document.createTextNode(source));
    return;
  }
  if (link.image) {
    // Remote images are never loaded (the CSP forbids them too): link instead.
    parent.append(anchor(href, `image: ${link.label || link.url}`, 'md-image-link'));
    return;
  }
  const a = anchor(href, null);
  renderInline(link.label || link.url, a, depth + 1, true);
  parent.append(a);
}

function anchor(href, text, className) {
  return el('a', { href, class: className, rel: 'noopener noreferrer nofollow', target: '_blank', text });
}

/** safeURL returns the normalised URL if it is absolute http(s), else "". */
export function safeURL(raw) {
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
  } catch {
    return '';
  }
}
