package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// defaultMaxAgents is --max-agents when none is given: min(cores×4,
// GiB of memory×2), at least 2.
//
// Memory: a real agent process (a Node CLI such as claude-agent-acp or
// gemini) holds 250–500 MB resident once it has a conversation loaded, so
// two per GiB keeps agents within about the machine's memory, before they
// swap or meet the OOM killer. Cores: an agent spends most of a turn
// waiting for its provider, so four per core keep the CPU busy without a
// thousand processes competing for it (1,000 mock agents at once held
// 17 GB RSS and made shutdown miss its deadline).
func defaultMaxAgents() int {
	byCPU := runtime.NumCPU() * 4
	n := byCPU
	if gib := memGiB(); gib > 0 {
		n = min(byCPU, gib*2)
	}
	return max(n, 2)
}

// memGiB is MemTotal from /proc/meminfo in whole GiB; 0 when unknown.
func memGiB() int {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				return 0
			}
			return kb >> 20
		}
	}
	return 0
}
