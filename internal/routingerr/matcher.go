package routingerr

import "fmt"

// The rules name a few hundred keywords. Searching for each one separately
// costs a pass over the text per keyword; instead one Aho-Corasick automaton
// finds all of them in a single pass, and rules test bits. Shallow states
// (where the automaton spends most of its time) have dense transition rows
// that stay in L1; deeper ones keep a short list of children and fall back
// along their fail link, which keeps the whole pass linear.

const (
	maxKeywords = 8 * 64
	denseDepth  = 3 // states up to this depth get dense rows
)

type kwSet [maxKeywords / 64]uint64

func (k *kwSet) set(id uint16)      { k[id>>6] |= 1 << (id & 63) }
func (k *kwSet) has(id uint16) bool { return k[id>>6]&(1<<(id&63)) != 0 }

type kid struct {
	class uint8
	next  uint16
}

type matcher struct {
	ids    map[string]uint16 // keyword → id
	words  []string          // id → keyword
	class  [256]uint8        // byte → class; 0 for bytes in no keyword
	nclass int

	row   []int32  // state → dense row, or -1
	dense []uint16 // dense[row*nclass+class] → state
	kids  []kid    // sparse children of state s: kids[kidAt[s]:kidAt[s+1]]
	kidAt []uint32
	fail  []uint16

	outAt []uint32 // keywords ending at state s: outs[outAt[s]:outAt[s+1]]
	outs  []uint16
}

func newMatcher(words []string) *matcher {
	m := &matcher{ids: make(map[string]uint16, len(words))}
	for _, w := range words {
		if w == "" {
			continue
		}
		if _, ok := m.ids[w]; ok {
			continue
		}
		if len(m.words) == maxKeywords {
			panic(fmt.Sprintf("routingerr: more than %d keywords", maxKeywords))
		}
		m.ids[w] = uint16(len(m.words))
		m.words = append(m.words, w)
	}
	m.nclass = 1
	for _, w := range m.words {
		for i := 0; i < len(w); i++ {
			if m.class[w[i]] == 0 {
				if m.nclass == 255 {
					panic("routingerr: too many byte classes")
				}
				m.class[w[i]] = uint8(m.nclass)
				m.nclass++
			}
		}
	}
	// Trie.
	type node struct {
		child map[uint8]int
		out   []uint16
		depth int
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
	if len(nodes) >= 1<<16 {
		panic("routingerr: keyword automaton too large")
	}
	n := len(nodes)
	m.row = make([]int32, n)
	m.fail = make([]uint16, n)
	m.kidAt = make([]uint32, n+1)
	for s := range nodes {
		m.row[s] = -1
		m.kidAt[s] = uint32(len(m.kids))
		for c := 0; c < m.nclass; c++ {
			if next, ok := nodes[s].child[uint8(c)]; ok {
				m.kids = append(m.kids, kid{uint8(c), uint16(next)})
			}
		}
	}
	m.kidAt[n] = uint32(len(m.kids))
	// Breadth-first, so a fail target and its row exist before they are used.
	queue := []int{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s != 0 {
			nodes[s].out = append(nodes[s].out, nodes[m.fail[s]].out...)
		}
		if nodes[s].depth <= denseDepth {
			m.row[s] = int32(len(m.dense) / m.nclass)
			for c := 0; c < m.nclass; c++ {
				next := 0
				if k, ok := nodes[s].child[uint8(c)]; ok {
					next = k
				} else if s != 0 {
					next = m.step(int(m.fail[s]), uint8(c))
				}
				m.dense = append(m.dense, uint16(next))
			}
		}
		for _, k := range m.kids[m.kidAt[s]:m.kidAt[s+1]] {
			if s != 0 {
				m.fail[k.next] = uint16(m.step(int(m.fail[s]), k.class))
			}
			queue = append(queue, int(k.next))
		}
	}
	m.outAt = make([]uint32, n+1)
	for s := range nodes {
		m.outAt[s] = uint32(len(m.outs))
		m.outs = append(m.outs, nodes[s].out...)
	}
	m.outAt[n] = uint32(len(m.outs))
	return m
}

// step is the automaton's transition from state s on byte class c.
func (m *matcher) step(s int, c uint8) int {
	for {
		if r := m.row[s]; r >= 0 {
			return int(m.dense[int(r)*m.nclass+int(c)])
		}
		for _, k := range m.kids[m.kidAt[s]:m.kidAt[s+1]] {
			if k.class == c {
				return int(k.next)
			}
		}
		s = int(m.fail[s])
	}
}

// scan marks every keyword that occurs in text. The dense case is inlined:
// it is almost every byte.
func (m *matcher) scan(text string, found *kwSet) {
	s, nc := 0, m.nclass
	row, dense, class, outAt := m.row, m.dense, &m.class, m.outAt
	for i := 0; i < len(text); i++ {
		c := class[text[i]]
		if c == 0 { // in no keyword: back to the root
			s = 0
			continue
		}
		if r := row[s]; r >= 0 {
			s = int(dense[int(r)*nc+int(c)])
		} else {
			s = m.step(s, c)
		}
		if a, b := outAt[s], outAt[s+1]; a != b {
			for _, id := range m.outs[a:b] {
				found.set(id)
			}
		}
	}
}

// id returns the id of a registered keyword.
func (m *matcher) id(w string) (uint16, bool) {
	id, ok := m.ids[w]
	return id, ok
}

// ids converts keywords to ids; every one was registered at build time.
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
