package routingerr

import "fmt"

// The rules name a few hundred keywords. Searching for each one separately
// costs a pass over the text per keyword; instead one Aho-Corasick automaton
// finds all of them in a single pass (which also lowercases the text), and
// rules test bits.
//
// States are numbered breadth-first, so the shallow ones, where the scan
// spends most of its time, come first and have dense transition rows that
// stay in L1. Deeper states keep a short list of children and fall back
// along their fail link, which keeps the pass linear. A transition carries
// a flag when keywords end at its target.
//
// A dense row only leads to states at most one deeper than denseDepth, the
// first few thousand, so its entries stay 16 bits (denseFlag) to keep the
// rows small; children and fail links of the deep states, where keywords
// add most states, are 32 bits (outFlag).

const (
	maxTracked  = 80 // keywords whose last position the scan records
	maxKeywords = 48 * 64
	denseDepth  = 8 // states up to this depth get dense rows
	denseFlag   = 1 << 15
	denseMask   = denseFlag - 1
	outFlag     = 1 << 31
	stateMask   = outFlag - 1
)

type kwSet [maxKeywords / 64]uint64

func (k *kwSet) set(id uint16)      { k[id>>6] |= 1 << (id & 63) }
func (k *kwSet) has(id uint16) bool { return k[id>>6]&(1<<(id&63)) != 0 }

// meets reports whether k and o share a keyword.
func (k *kwSet) meets(o *kwSet) bool {
	var x uint64
	for i := range k {
		x |= k[i] & o[i]
	}
	return x != 0
}

type kid struct {
	class uint8
	next  uint32 // with outFlag
}

// lastEnds holds, for each tracked keyword, the end offset (exclusive) of
// its last occurrence; 0 when absent.
type lastEnds [maxTracked]int32

type matcher struct {
	ntrack int               // ids [0, ntrack) are tracked
	ids    map[string]uint16 // keyword → id
	words  []string          // id → keyword
	class  [256]uint8        // byte → class, upper and lower case alike; 0 for bytes in no keyword
	nclass int

	ndense int      // states [0, ndense) have dense rows
	dense  []uint16 // dense[state*nclass+class] → next state, with denseFlag
	kids   []kid    // children of a sparse state s: kids[kidAt[s]:kidAt[s+1]]
	kidAt  []uint32
	fail   []uint32

	outAt []uint32 // keywords ending at state s: outs[outAt[s]:outAt[s+1]]
	outs  []uint16
}

// newMatcher builds the automaton; the first ntrack words (which must be
// distinct) get their last position recorded by scan.
func newMatcher(words []string, ntrack int) *matcher {
	if ntrack > maxTracked {
		panic("routingerr: too many tracked keywords")
	}
	m := &matcher{ids: make(map[string]uint16, len(words)), ntrack: ntrack}
	canonID := make(map[string]uint16, len(words))
	for _, w := range words {
		if w == "" {
			continue
		}
		if _, ok := m.ids[w]; ok {
			continue
		}
		c := canonKeyword(w)
		if id, ok := canonID[c]; ok {
			if len(m.words) < ntrack {
				// A tracked word's id must be its index: textStatus reads
				// statusMarkers[id].
				panic("routingerr: tracked keyword " + w + " reads as " + m.words[id])
			}
			m.ids[w] = id
			continue
		}
		if len(m.words) == maxKeywords {
			panic(fmt.Sprintf("routingerr: more than %d keywords", maxKeywords))
		}
		canonID[c] = uint16(len(m.words))
		m.ids[w] = uint16(len(m.words))
		m.words = append(m.words, c)
	}
	m.nclass = 1
	for _, w := range m.words {
		for i := 0; i < len(w); i++ {
			b := w[i]
			if 'A' <= b && b <= 'Z' {
				panic("routingerr: keyword not lowercase: " + w)
			}
			if m.class[b] == 0 {
				if m.nclass == 255 {
					panic("routingerr: too many byte classes")
				}
				m.class[b] = uint8(m.nclass)
				if 'a' <= b && b <= 'z' {
					m.class[b-'a'+'A'] = uint8(m.nclass)
				}
				m.nclass++
			}
		}
	}
	// A single quote is a double quote (Python reprs of JSON bodies).
	m.class['\''] = m.class['"']

	// Trie, then breadth-first renumbering.
	type node struct {
		child map[uint8]int
		out   []uint16
		depth int
		fail  int
	}
	nodes := []node{{child: map[uint8]int{}}}
	for id, w := range m.words {
		s := 0
		for i := 0; i < len(w); i++ {
			c := m.class[w[i]]
			n, ok := nodes[s].child[c]
			if !ok {
				n = len(nodes)
				nodes = append(nodes, node{child: map[uint8]int{}, depth: i + 1})
				nodes[s].child[c] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, uint16(id))
	}
	if len(nodes) >= stateMask {
		panic("routingerr: keyword automaton too large")
	}
	order := []int{0} // breadth-first: order[newID] = old id
	for i := 0; i < len(order); i++ {
		for c := 0; c < m.nclass; c++ {
			if n, ok := nodes[order[i]].child[uint8(c)]; ok {
				order = append(order, n)
			}
		}
	}
	newID := make([]int, len(nodes))
	for id, old := range order {
		newID[old] = id
		if nodes[old].depth <= denseDepth {
			m.ndense = id + 1
		}
	}

	// Fail links and merged outputs, in breadth-first order so every fail
	// target is complete before it is used.
	n := len(nodes)
	m.fail = make([]uint32, n)
	m.kidAt = make([]uint32, n+1)
	outs := make([][]uint16, n)
	for id, old := range order {
		m.kidAt[id] = uint32(len(m.kids))
		for c := 0; c < m.nclass; c++ {
			if k, ok := nodes[old].child[uint8(c)]; ok {
				m.kids = append(m.kids, kid{uint8(c), uint32(newID[k])})
			}
		}
	}
	m.kidAt[n] = uint32(len(m.kids))
	m.dense = make([]uint16, m.ndense*m.nclass)
	for id, old := range order {
		outs[id] = append(outs[id], nodes[old].out...)
		if id != 0 {
			outs[id] = append(outs[id], outs[m.fail[id]]...)
		}
		for _, k := range m.kids[m.kidAt[id]:m.kidAt[id+1]] {
			if id != 0 {
				m.fail[k.next] = uint32(m.step(int(m.fail[id]), k.class) & stateMask)
			}
		}
		if id < m.ndense {
			for c := 1; c < m.nclass; c++ {
				next := 0
				if id != 0 {
					next = m.step(int(m.fail[id]), uint8(c))
				}
				m.dense[id*m.nclass+c] = denseEntry(next)
			}
			for _, k := range m.kids[m.kidAt[id]:m.kidAt[id+1]] {
				m.dense[id*m.nclass+int(k.class)] = denseEntry(int(k.next))
			}
		}
	}
	m.outAt = make([]uint32, n+1)
	for s := range outs {
		m.outAt[s] = uint32(len(m.outs))
		m.outs = append(m.outs, outs[s]...)
	}
	m.outAt[n] = uint32(len(m.outs))
	// Flag every transition whose target ends a keyword.
	for i, v := range m.dense {
		if len(outs[v]) > 0 {
			m.dense[i] = v | denseFlag
		}
	}
	for i, k := range m.kids {
		if len(outs[k.next]) > 0 {
			m.kids[i].next = k.next | outFlag
		}
	}
	return m
}

// denseEntry is state s as a dense row holds it; only the shallow states a
// dense row can lead to fit (see the package comment above).
func denseEntry(s int) uint16 {
	if s > denseMask {
		panic(fmt.Sprintf("routingerr: dense row leads to state %d, past %d", s, denseMask))
	}
	return uint16(s)
}

// step is the transition from state s on class c (c != 0); the result may
// carry outFlag. While the automaton is built, it is only asked about states
// already complete (breadth-first order guarantees it).
func (m *matcher) step(s int, c uint8) int {
	for {
		if s < m.ndense {
			v := int(m.dense[s*m.nclass+int(c)])
			return v&denseMask | (v&denseFlag)<<16
		}
		for _, k := range m.kids[m.kidAt[s]:m.kidAt[s+1]] {
			if k.class == c {
				return int(k.next)
			}
		}
		s = int(m.fail[s])
	}
}

// canonKeyword is a keyword as the automaton sees text: without
// backslashes, with single quotes as double quotes and without the blanks
// after a colon. So `"type":"overloaded_error"` also finds
// `\"type\": \"overloaded_error\"` in JSON wrapped in a JSON string (at any
// depth) and `'type': 'overloaded_error'` in a Python repr.
func canonKeyword(w string) string {
	var b []byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '\\':
			continue
		case c == '\'':
			c = '"'
		case isBlank(c):
			if len(b) > 0 && (b[len(b)-1] == ':' || b[len(b)-1] == ' ') {
				continue
			}
			c = ' '
		}
		b = append(b, c)
	}
	return string(b)
}

// isBlank: the bytes a terminal wraps text at. The automaton reads a run
// of them (and box-drawing borders, see boxBorder) as one space, so a
// keyword still matches when a terminal, a box or a pasted log broke its
// line ("fetch \n     failed", "Retrying   │\n│    with backoff").
func isBlank(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// boxBorder reports whether text[i:] starts with "│" (U+2502), the border
// Gemini CLI and Qwen Code draw around errors; it reads as a blank.
func boxBorder(text string, i int) bool {
	return text[i] == 0xE2 && i+2 < len(text) && text[i+1] == 0x94 && text[i+2] == 0x82
}

// scan lowercases text into low (same length), marks every keyword that
// occurs in it and records where tracked keywords (status markers) last
// ended before a status (see statusAt). The automaton reads the text
// canonically (see canonKeyword): it steps over backslashes, over blanks
// after a colon, and reads a run of blanks and box borders as one space.
func (m *matcher) scan(text string, low []byte, found *kwSet, last *lastEnds) {
	s, nc, nd, nt := 0, m.nclass, m.ndense, uint16(m.ntrack)
	dense, class := m.dense, &m.class
	low = low[:len(text)]
	var prev byte
	for i := 0; i < len(text); i++ {
		b := asciiLower[text[i]]
		low[i] = b
		if k := byteKind[b]; k != kindPlain { // one test for the common byte
			if k == kindBackslash {
				continue
			}
			if k == kindQuote {
				if !quoteMarker(text, i) {
					goto plain
				}
				k = kindBlank
			}
			if k == kindBlank || boxBorder(text, i) {
				if k == kindBoxLead {
					low[i+1], low[i+2] = text[i+1], text[i+2]
					i += 2
				}
				if prev == ':' || prev == ' ' {
					continue
				}
				b = ' '
			}
		}
	plain:
		prev = b
		c := class[b]
		if c == 0 { // in no keyword: back to the root
			s = 0
			continue
		}
		var hit bool
		if s < nd {
			v := dense[s*nc+int(c)]
			s, hit = int(v&denseMask), v&denseFlag != 0
		} else {
			v := m.step(s, c)
			s, hit = v&stateMask, v&outFlag != 0
		}
		if hit {
			for _, id := range m.outs[m.outAt[s]:m.outAt[s+1]] {
				found.set(id)
				if id < nt {
					if _, ok := markerStatusAt(statusMarkers[id], text, i+1); ok && (int(id) < firstBracketMarker || bracketStatusOK(statusMarkers[id], text, i+1)) {
						last[id] = int32(i + 1)
					}
				}
			}
		}
	}
}

// Byte kinds the scan treats specially (byteKind): a backslash is skipped,
// a blank may be folded into the one before it, 0xE2 may start a box
// border ("│").
const (
	kindPlain uint8 = iota
	kindBackslash
	kindBlank
	kindBoxLead
	kindQuote
)

// quoteMarker: the '>' at i is a Markdown quote's marker, "> " after
// only blanks and markers on its line, so a wrapped line quoted in a reply
// ("invalid\n> peer certificate") still reads as one run of words.
func quoteMarker(text string, i int) bool {
	if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '>' && text[i+1] != '\n' {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		switch text[j] {
		case ' ', '\t', '>':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

var byteKind = func() (t [256]uint8) {
	t['\\'] = kindBackslash
	for _, b := range []byte{' ', '\n', '\t', '\r'} {
		t[b] = kindBlank
	}
	t[0xE2] = kindBoxLead
	t['>'] = kindQuote
	return t
}()

// asciiLower maps ASCII capitals to lowercase and every other byte to
// itself (UTF-8 sequences are left alone, so offsets in low and raw agree).
var asciiLower = func() (t [256]byte) {
	for b := range 256 {
		t[b] = byte(b)
		if 'A' <= b && b <= 'Z' {
			t[b] = byte(b) + 'a' - 'A'
		}
	}
	return t
}()

// id returns the id of a registered keyword.
func (m *matcher) id(w string) (uint16, bool) {
	id, ok := m.ids[w]
	return id, ok
}

// idsOf converts keywords to ids; every one was registered at build time.
func (m *matcher) idsOf(ws []string) []uint16 {
	out := make([]uint16, len(ws))
	for i, w := range ws {
		id, ok := m.ids[w]
		if !ok {
			panic("routingerr: unregistered keyword " + w)
		}
		out[i] = id
	}
	return out
}
