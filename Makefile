GO      ?= go
BIN     := bin/orchestratord
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Extra arguments for `make run`, e.g. make run ARGS="--retry-scale 0.2".
ARGS    ?=
# Extra arguments for `make overload`, e.g. OVERLOAD_ARGS="-runs inprocess:1000 -gate on".
OVERLOAD_ARGS ?=

.PHONY: run build test bench lint fuzz overload clean

run: build
	./$(BIN) serve $(ARGS)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/orchestratord

# The one test command: vet, then every test with the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 15m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The overload gate benchmark (a program, not part of `make test`): N sessions
# through a provider wall of 529s, gate on and off, as a Markdown table.
overload:
	$(GO) build -o bin/overloadsim ./cmd/overloadsim
	./bin/overloadsim $(OVERLOAD_ARGS)

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzClassify -fuzztime 60s ./internal/routingerr/

clean:
	rm -rf bin
