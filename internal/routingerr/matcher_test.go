package routingerr

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The rules' keywords already take ~30k automaton states; the matcher must
// keep finding every keyword past 2^15 states, where its deep transitions
// used to overflow 16 bits.
func TestMatcherPastSixteenBitStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(rng.IntN(26))
		}
		return string(b)
	}
	seen := map[string]bool{}
	var words []string
	for len(words) < 2000 {
		if w := word(6 + rng.IntN(30)); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	m := newMatcher(words, 0)
	if len(m.fail) <= 1<<15 {
		t.Fatalf("only %d states: the test must go past 2^15", len(m.fail))
	}
	var text strings.Builder
	for i, w := range words {
		if i%3 == 0 {
			text.WriteString(strings.ToUpper(w[:1]) + w[1:] + " " + word(5) + " ")
		}
	}
	var found kwSet
	var last lastEnds
	low := make([]byte, text.Len())
	m.scan(text.String(), low, &found, &last)
	lower := strings.ToLower(text.String())
	for id, w := range words {
		if want := strings.Contains(lower, w); found.has(uint16(id)) != want {
			t.Errorf("keyword %d %q: found %v, in the text %v", id, w, found.has(uint16(id)), want)
		}
	}
}
