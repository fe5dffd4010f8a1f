package browser

import (
	"testing"
)

// The page's modules, exercised directly in the browser (imported from the
// daemon, under its CSP): the Markdown renderer's output for the cases that
// matter, the session model's seq bookkeeping, and a thought that stays open
// while it streams.
func TestPageModules(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))

	cases := []struct{ name, src, want string }{
		{"inline", "plain *em* **strong** ***both*** `code` ~~del~~",
			`<p>plain <em>em</em> <strong>strong</strong> <em><strong>both</strong></em> <code>code</code> <del>del</del></p>`},
		{"not emphasis", `snake_case_name, 2*3 and \*escaped\*`, `<p>snake_case_name, 2*3 and *escaped*</p>`},
		{"lines and paragraphs", "line one\nline two\n\nnew para", `<p>line one<br>line two</p><p>new para</p>`},
		{"code block", "```go\nfmt.Println(\"<b>\")\n```", `<div class="md-codeblock"><pre class="md-code"><code data-lang="go">fmt.Println("&lt;b&gt;")</code></pre><button type="button" class="copy-button" aria-label="Copy code" data-label="Copy"></button></div>`},
		{"inline triple backticks", "```make test``` now", `<p><code>make test</code> now</p>`},
		{"unclosed fence while streaming", "```\npartial", `<div class="md-codeblock"><pre class="md-code"><code>partial</code></pre><button type="button" class="copy-button" aria-label="Copy code" data-label="Copy"></button></div>`},
		{"table", "| Name | Size |\n|:-----|-----:|\n| `a.go` | 12 |\n| b\\|c | **3** |\n\nafter",
			`<div class="md-table"><table><thead><tr><th class="align-left">Name</th><th class="align-right">Size</th></tr></thead>` +
				`<tbody><tr><td class="align-left"><code>a.go</code></td><td class="align-right">12</td></tr>` +
				`<tr><td class="align-left">b|c</td><td class="align-right"><strong>3</strong></td></tr></tbody></table></div><p>after</p>`},
		{"table after a paragraph", "Results:\na | b\n--- | ---\n1 | 2",
			`<p>Results:</p><div class="md-table"><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></div>`},
		{"pipes without a delimiter row stay text", "a | b\nc | d", `<p>a | b<br>c | d</p>`},
		{"nested list", "- one\n- two\n  - nested\n- three",
			`<ul><li><p>one</p></li><li><p>two</p><ul><li><p>nested</p></li></ul></li><li><p>three</p></li></ul>`},
		{"ordered list", "3. third\n4. fourth", `<ol start="3"><li><p>third</p></li><li><p>fourth</p></li></ol>`},
		{"links", "[ok](https://example.com) [bad](javascript:alert(1)) <https://x.org/y> see https://a.b/c.",
			`<p><a href="https://example.com/" rel="noopener noreferrer nofollow" target="_blank">ok</a> [bad](javascript:alert(1)) ` +
				`<a href="https://x.org/y" rel="noopener noreferrer nofollow" target="_blank">https://x.org/y</a> see ` +
				`<a href="https://a.b/c" rel="noopener noreferrer nofollow" target="_blank">https://a.b/c</a>.</p>`},
		{"image becomes a link", "![chart](https://example.com/c.png)",
			`<p><a href="https://example.com/c.png" class="md-image-link" rel="noopener noreferrer nofollow" target="_blank">image: chart</a></p>`},
		{"blocks", "# Title\n> quote **b**\n\n---", `<h3 class="md-heading">Title</h3><blockquote><p>quote <strong>b</strong></p></blockquote><hr>`},
		{"html is text", "<script>alert(1)</script><img src=x onerror=alert(1)>",
			`<p>&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</p>`},
	}
	var srcs []string
	for _, c := range cases {
		srcs = append(srcs, c.src)
	}
	got := evalAwait[[]string](tb, `(async () => {
		const { renderMarkdown } = await import('/markdown.js');
		return `+jsJSON(t, srcs)+`.map((src) => {
			const d = document.createElement('div');
			d.append(renderMarkdown(src));
			return d.innerHTML;
		});
	})()`)
	for i, c := range cases {
		if i >= len(got) || got[i] != c.want {
			t.Errorf("%s: renderMarkdown(%q)\n got %s\nwant %s", c.name, c.src, at(got, i), c.want)
		}
	}

	type model struct {
		Applied             []bool
		Text                string
		Seq, LastSeq, After int
		State, Mode         string
	}
	m := evalAwait[model](tb, `(async () => {
		const { SessionModel, Change } = await import('/session.js');
		const m = new SessionModel('t', 's');
		m.applySubscribe({ mode: 'snapshot', session: { state: 'RUNNING' }, last_seq: 3,
			messages: [{ id: 'a', seq: 1, role: 'agent', text: 'Hel' }] });
		const ch = new Change();
		const applied = [
			m.apply('session.message.updated', { session_id: 's', seq: 3, message_id: 'a', delta: 'XX' }, ch),
			m.apply('session.message.updated', { session_id: 's', seq: 4, message_id: 'a', delta: 'lo' }, ch),
			m.apply('session.message.updated', { session_id: 's', seq: 4, message_id: 'a', delta: 'lo' }, ch),
			m.apply('session.message.added', { session_id: 'other', seq: 9, message: { id: 'z' } }, ch),
		];
		// A replay that overlaps what was applied, then a replace (seq 0 in the payload).
		m.applySubscribe({ mode: 'replay', session: { state: 'WAITING_FOR_INPUT' }, last_seq: 5, events: [
			{ action: 'session.message.updated', seq: 4, payload: { session_id: 's', seq: 4, message_id: 'a', delta: 'lo' } },
			{ action: 'session.message.updated', seq: 5, payload: { session_id: 's', seq: 5, message: { id: 'a', seq: 0, role: 'agent', text: 'Hello!' } } },
		] });
		const a = m.messages.get('a');
		return { Applied: applied, Text: a.text, Seq: a.seq, LastSeq: m.lastSeq, After: m.subscribePayload().after_seq,
			State: m.state, Mode: m.mode };
	})()`)
	if want := []bool{false, true, false, false}; len(m.Applied) != 4 || m.Applied[0] != want[0] || m.Applied[1] != want[1] || m.Applied[2] != want[2] || m.Applied[3] != want[3] {
		t.Errorf("applied %v, want %v (seq <= last applied and other sessions are ignored)", m.Applied, want)
	}
	if m.Text != "Hello!" || m.Seq != 1 || m.LastSeq != 5 || m.After != 5 || m.State != "WAITING_FOR_INPUT" || m.Mode != "replay" {
		t.Errorf("model after replay: %+v", m)
	}

	type thought struct {
		ClosedAtFirst, SameNode, StillOpen bool
		Text                               string
	}
	th := evalAwait[thought](tb, `(async () => {
		const { ChatView } = await import('/chat.js');
		const { SessionModel, Change } = await import('/session.js');
		const box = document.createElement('div');
		document.body.append(box);
		const v = new ChatView(box);
		const m = new SessionModel('t', 's');
		m.applySubscribe({ mode: 'snapshot', session: { state: 'RUNNING' }, last_seq: 0, messages: [] });
		v.show(m);
		let ch = new Change();
		m.apply('session.message.added', { session_id: 's', seq: 1, message: { id: 'th', seq: 1, role: 'thought', text: 'Let me think' } }, ch);
		v.update(m, ch); v.flush();
		const d = box.querySelector('details.msg-thought');
		const closed = !d.open;
		d.open = true;
		ch = new Change();
		m.apply('session.message.updated', { session_id: 's', seq: 2, message_id: 'th', delta: ' harder' }, ch);
		v.update(m, ch); v.flush();
		const d2 = box.querySelector('details.msg-thought');
		const r = { ClosedAtFirst: closed, SameNode: d === d2, StillOpen: d2.open, Text: d2.querySelector('.msg-body').textContent };
		box.remove();
		return r;
	})()`)
	if !th.ClosedAtFirst || !th.SameNode || !th.StillOpen || th.Text != "Let me think harder" {
		t.Errorf("thought: %+v; want collapsed at first, and kept open while it streams", th)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(missing)"
}
