package routingerr

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// catalogueLine is a corpus line (DESIGN §3) from the source catalogue:
// every error an emitter can end a turn with, as the emitter writes it.
// Evidence, when present, says how it reaches the classifier (the JSON-RPC
// code, message and data an ACP agent sends; an exit status; stderr);
// otherwise the text is the error text.
type catalogueLine struct {
	corpusLine
	Evidence *struct {
		RPCCode    *int   `json:"rpc_code"`
		RPCMessage string `json:"rpc_message"`
		RPCData    string `json:"rpc_data"`
		Phase      Phase  `json:"phase"`
		ExitStatus string `json:"exit_status"`
		Stderr     string `json:"stderr"`
		Err        string `json:"err"`
		Cancelled  bool   `json:"cancelled"`
	} `json:"evidence"`
	emitter string
}

func (l catalogueLine) evidence() Evidence {
	ev := corpusEvidence(l.corpusLine)
	e := l.Evidence
	if e == nil {
		return ev
	}
	ev = Evidence{Phase: e.Phase, ExitStatus: e.ExitStatus, StderrTail: e.Stderr, Err: e.Err,
		RPCMessage: e.RPCMessage, RPCData: e.RPCData, Cancelled: e.Cancelled}
	if l.HTTPStatus != nil {
		ev.HTTPStatus = *l.HTTPStatus
	}
	if e.RPCCode != nil {
		ev.HasRPCError, ev.RPCCode = true, *e.RPCCode
	}
	return ev
}

func loadCatalogue(t testing.TB) []catalogueLine {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "catalogue", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no catalogue: %v", err)
	}
	var out []catalogueLine
	ids := map[string]bool{}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for n := 1; sc.Scan(); n++ {
			var l catalogueLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			if ids[l.ID] {
				t.Fatalf("%s:%d: duplicate id %s", path, n, l.ID)
			}
			if l.Source == "" || l.Expect.Class == "" || l.Expect.Family == "" {
				t.Fatalf("%s:%d: %s needs source, class and family", path, n, l.ID)
			}
			ids[l.ID] = true
			l.emitter = strings.TrimSuffix(filepath.Base(path), ".jsonl")
			out = append(out, l)
		}
		f.Close()
	}
	return out
}

// TestCatalogue: every catalogue row is classified right by a rule (not by
// falling through, unless the row says nothing can be known), and every
// rule is the one that decides at least one row: a rule no emitter's text
// needs is a guess.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	lines := loadCatalogue(t)
	if len(lines) < 400 {
		t.Fatalf("catalogue has %d rows, want 400+", len(lines))
	}
	covered := map[string]int{}
	perEmitter := map[string][2]int{}
	for _, l := range lines {
		c := Classify(l.evidence(), corpusNow)
		covered[c.RuleID]++
		pe := perEmitter[l.emitter]
		pe[1]++
		msg := checkCorpus(l.corpusLine, c)
		if msg == "" && c.RuleID == ruleUnclassified && l.Expect.Class != ClassUnclassified {
			msg = "no rule matched"
		}
		if msg != "" {
			t.Errorf("%s: %s\n  got  code=%s class=%s rule=%s\n  text %.300q", l.ID, msg, c.Code, c.Class, c.RuleID, l.Text)
		} else {
			pe[0]++
		}
		perEmitter[l.emitter] = pe
	}
	var names []string
	for k := range perEmitter {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		t.Logf("%-18s %3d/%3d", k, perEmitter[k][0], perEmitter[k][1])
	}
	for _, r := range ruleTable {
		if covered[r.id] == 0 {
			t.Errorf("rule %s decides no catalogue row", r.id)
		}
	}
}
