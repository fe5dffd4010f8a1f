GO      ?= go
BIN     := bin/orchestratord
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Extra arguments for `make run`, e.g. make run ARGS="--retry-scale 0.2".
ARGS    ?=
# Extra arguments for `make overload`, e.g. OVERLOAD_ARGS="-runs inprocess:1000 -gate on".
OVERLOAD_ARGS ?=
# Extra arguments for `make chaos`, e.g. CHAOS_ARGS="-rounds 200 -seed 7" or "-seeds 5,13 -v".
CHAOS_ARGS ?=

.PHONY: run build test bench bench-stores lint fuzz overload realagents chaos fleet clean

run: build
	./$(BIN) serve $(ARGS)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/orchestratord

# The one test command: vet, then every test with the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 15m ./...

# The fleet tests (issue 17): a throwaway PostgreSQL and N real daemons on
# loopback ports sharing it. `make test` runs the quick ones; this runs
# every one, the 50-retry SIGKILL failover too (about 90s).
fleet:
	ORCHESTRATORD_REQUIRE_POSTGRES=1 ORCHESTRATORD_FLEET_FULL=1 $(GO) test -race -count=1 -v -timeout 15m ./test/fleet/

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

# The store benchmarks alone, SQLite and PostgreSQL side by side, ending
# with a Markdown table (part of `make bench` too).
bench-stores:
	$(GO) test -run '^$$' -bench BenchmarkStores -benchmem -timeout 30m ./internal/store/postgres/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The overload gate benchmark (a program, not part of `make test`): N sessions
# through a provider wall of 529s, gate on and off, as a Markdown table.
overload:
	$(GO) build -o bin/overloadsim ./cmd/overloadsim
	./bin/overloadsim $(OVERLOAD_ARGS)

# Opt-in tests with four real ACP agents (Gemini CLI, Codex, opencode, Qwen Code),
# each against the project's Go fake of its provider on 127.0.0.1 (test/realagent/acpagents).
# Installs the pinned agents with npm into $(REALAGENTS_DIR)/<agent> when missing, then runs
# the tests one agent at a time, inside a network namespace that has only loopback when
# unshare works (root), so nothing but 127.0.0.1 can be reached. Not part of `make test`.
# REALAGENTS_RUN narrows the tests, e.g. REALAGENTS_RUN=TestGeminiRecovers/rate_limited;
# the evidence matrix is printed at the end and appended to $(REALAGENTS_DIR)/matrix.jsonl.
REALAGENTS_DIR ?= /tmp/realagents
REALAGENTS_RUN ?= .
REALAGENTS_PARALLEL ?= 2
realagents:
	@set -e; d=$(REALAGENTS_DIR); \
	get() { if [ -e "$$d/$$1/$$4" ]; then echo "realagents: $$2 already in $$d/$$1"; return 0; fi; \
	  echo "realagents: npm install $$2@$$3 into $$d/$$1"; mkdir -p "$$d/$$1"; \
	  npm install --prefix "$$d/$$1" --save-exact --no-audit --no-fund --loglevel=error "$$2@$$3" || true; \
	  [ -e "$$d/$$1/$$4" ] || { echo "realagents: $$d/$$1/$$4 missing after npm install" >&2; exit 1; }; }; \
	get gemini @google/gemini-cli 0.61.0 node_modules/@google/gemini-cli/bundle/gemini.js; \
	get codex @zed-industries/codex-acp 0.16.0 node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp; \
	get opencode opencode-ai 1.18.33 node_modules/opencode-linux-x64/bin/opencode; \
	get qwen @qwen-code/qwen-code 0.24.4 node_modules/@qwen-code/qwen-code/cli-entry.js; \
	$(GO) build -race -o "$$d/orchestratord" ./cmd/orchestratord; \
	set -- env GOPROXY=off ORCHESTRATORD_REAL_AGENT_DAEMON="$$d/orchestratord" ORCHESTRATORD_REAL_MATRIX="$$d/matrix.jsonl" \
	  ORCHESTRATORD_REAL_GEMINI="$$d/gemini/node_modules/.bin/gemini" \
	  ORCHESTRATORD_REAL_CODEX="$$d/codex/node_modules/.bin/codex-acp" \
	  ORCHESTRATORD_REAL_OPENCODE="$$d/opencode/node_modules/.bin/opencode" \
	  ORCHESTRATORD_REAL_QWEN="$$d/qwen/node_modules/.bin/qwen" \
	  $(GO) test -v -count=1 -parallel $(REALAGENTS_PARALLEL) -timeout 60m -run '$(REALAGENTS_RUN)' ./test/realagent/acpagents/; \
	if unshare -n true 2>/dev/null; then exec unshare -n sh -c 'ip link set lo up && exec "$$@"' netns "$$@"; \
	else echo "realagents: no network namespace (needs root); the agents share the host network" >&2; exec "$$@"; fi

# The fault suite (issue 10; a program, not part of `make test`, which runs a
# few rounds of it): SIGKILLs, killed agents, a full and a read-only disk
# (as root, on a tmpfs), invariants after every round, a Markdown report.
chaos: build
	$(GO) build -o bin/chaos ./cmd/chaos
	./bin/chaos -bin $(BIN) $(CHAOS_ARGS)

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzClassify -fuzztime 60s ./internal/routingerr/
	$(GO) test -run '^$$' -fuzz FuzzTaskUpdatedPayload -fuzztime 30s ./internal/orchestrator/

clean:
	rm -rf bin
