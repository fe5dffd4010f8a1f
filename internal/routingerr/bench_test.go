package routingerr

import (
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchTypical is a ~300-byte failure as lifecycle reports it: the ACP
// adapter's JSON-RPC error around Claude Code's 529 line.
var benchTypical = Evidence{
	Agent: "claude", Phase: PhaseStreaming, HasRPCError: true, RPCCode: -32603,
	RPCMessage: "Internal error: API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:18529).",
	RPCData:    `{"errorKind":"server_error","request_id":"req_011CUrS5Kp2WmT8nQx3LyBa7D"}`,
	ExitStatus: "",
}

// benchUnmatched is ~300 bytes that no rule matches: every rule is tried.
var benchUnmatched = Evidence{
	Phase: PhaseStreaming,
	Err: "agent prompt: the tool runner reported an unexpected condition while writing the patch for " +
		"internal/queue/worker.go; the edit was rolled back and the session continues. Details: EISDIR: " +
		"illegal operation on a directory, read (path=/srv/build/cache, attempt=3, elapsed=15290ms, size=402913)",
}

// benchStderr64K is a 64 KiB stderr tail of debug chatter ending in the
// final error line.
var benchStderr64K = func() Evidence {
	var b strings.Builder
	line := "[2026-06-01T12:00:00.000Z] DEBUG stream chunk received bytes=1532 model=claude-sonnet-4-5 tokens=402913 latency=15290ms\n"
	for b.Len() < 64<<10-200 {
		b.WriteString(line)
	}
	b.WriteString(`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CUv9Ta3LmK6nWp2RyQd8F"}` + "\n")
	return Evidence{Phase: PhaseStreaming, ExitStatus: "exit status 1", StderrTail: b.String()}
}()

var benchSink Classification

// benchClassify also reports cpu-ns/op, the CPU time of the benchmarking
// thread per call (RUSAGE_THREAD, the goroutine locked to it): on a shared,
// loaded machine ns/op counts the time other processes held the core,
// cpu-ns/op does not.
func benchClassify(b *testing.B, ev Evidence) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	b.SetBytes(int64(len(ev.RPCMessage) + len(ev.RPCData) + len(ev.Err) + len(ev.StderrTail)))
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, n := threadCPU(), 0
	for b.Loop() {
		benchSink = Classify(ev, now)
		n++
	}
	if cpu := threadCPU() - start; n > 0 && cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}

// threadCPU is the user and system CPU time of the calling thread, or 0
// where the platform cannot say.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD on Linux */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkClassifyTypical300B(b *testing.B)   { benchClassify(b, benchTypical) }
func BenchmarkClassifyUnmatched300B(b *testing.B) { benchClassify(b, benchUnmatched) }
func BenchmarkClassifyStderr64KiB(b *testing.B)   { benchClassify(b, benchStderr64K) }

// BenchmarkClassifyNamedModel300B is the typical failure naming its model:
// the model is read from the text without allocating.
func BenchmarkClassifyNamedModel300B(b *testing.B) {
	ev := benchTypical
	ev.RPCData = `{"errorKind":"server_error","model":"claude-sonnet-4-5","request_id":"req_011CUrS5Kp2WmT8nQx3LyBa7D"}`
	benchClassify(b, ev)
}

// BenchmarkClassifySize shows the cost grows linearly with the text read,
// and stops growing at the per-field bound.
func BenchmarkClassifySize(b *testing.B) {
	line := "[debug] tool runner wrote 402913 bytes in 15290ms to /srv/build/cache; nothing to report here\n"
	for _, n := range []int{256, 1 << 10, 4 << 10, 16 << 10, 64 << 10} {
		text := strings.Repeat(line, n/len(line)+1)[:n]
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchClassify(b, Evidence{Err: text}) })
	}
	full := strings.Repeat(line, (64<<10)/len(line))
	b.Run("4x64KiB", func(b *testing.B) {
		benchClassify(b, Evidence{RPCMessage: full, RPCData: full, Err: full, StderrTail: full})
	})
}

func BenchmarkMatcherScan(b *testing.B) {
	s := benchTypical.RPCMessage + "\n" + benchTypical.RPCData
	b.SetBytes(int64(len(s)))
	buf := make([]byte, len(s))
	var (
		f kwSet
		l lastEnds
	)
	for b.Loop() {
		f, l = kwSet{}, lastEnds{}
		keywords.scan(s, buf, &f, &l)
	}
}

func BenchmarkSanitizeExcerpt(b *testing.B) {
	s := strings.Repeat("Authorization: Bearer abcdefghijklmnop /home/alice/x sk-ant-api03-abcdefghijklmnop ", 6)
	b.ReportAllocs()
	for b.Loop() {
		_ = Sanitize(s)
	}
}

// BenchmarkHostile4x64KiB feeds 64 KiB of a repeated trigger pattern into
// every text field: the cost must stay linear (compare with the 64 KiB tail).
func BenchmarkHostile4x64KiB(b *testing.B) {
	patterns := []string{
		"overloaded ", "api error: ", `"code":`, "retrying in ", "529 overloade", "retry-after: x ",
		"hit your ", "resets ", "status: ", "\n", "e", "sk-aaaa", "/home/", "bearer ", "authorization",
		"terminated ", "limit resets ", "limit: 0", `\"`, "retrying with backoff ", "connection closed ", `": eof `,
		"exceeded your ", "error: unexpected argument '", "providers failed. attempts: attempt 1/3: ", "retrying after 1s ",
	}
	for _, p := range patterns {
		s := strings.Repeat(p, (64<<10)/len(p))
		ev := Evidence{RPCMessage: s, RPCData: s, Err: s, StderrTail: s}
		b.Run(strconv.Quote(p), func(b *testing.B) {
			for b.Loop() {
				Classify(ev, testNow)
			}
		})
	}
}

// TestLongLogAllocatesNothing: a 64 KiB stderr of logged lines costs no
// allocation per line (a wrap check that built a string per line once cost
// 256 allocations here).
func TestLongLogAllocatesNothing(t *testing.T) {
	Classify(benchStderr64K, testNow) // warm the pool
	if n := testing.AllocsPerRun(20, func() { Classify(benchStderr64K, testNow) }); n > 1 {
		t.Errorf("classifying 64 KiB of log lines allocates %v times, want at most 1", n)
	}
}
