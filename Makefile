# tradedeck: `make run` opens the dashboard on the embedded simulated venue,
# `make test` runs every test (vet + race detector).
GO       ?= go
BIN      ?= bin/tradedeck
PKGS     ?= ./...
BENCHTIME ?= 1s
COUNT    ?= 6

.PHONY: run build test bench bench-serve lint soak clean

run: build
	./$(BIN)

build:
	$(GO) build -o $(BIN) .

test:
	$(GO) vet $(PKGS)
	$(GO) test -race -timeout 15m $(PKGS)

# Benchmarks, several runs each so benchstat can compare: make bench > new.txt
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(COUNT) -benchtime $(BENCHTIME) $(PKGS)

# SSH load: N real viewers (160x48) against `serve --live` on a simulator,
# calm and busy; prints server CPU, RSS, venue connections, bytes/s per
# viewer, a late joiner's first frame and frame delays (docs/serve.md).
# `make bench-serve SERVE_RUNS=200:calm`.
SERVE_RUNS ?= 1:calm,10:calm,50:calm,50:busy
bench-serve: build
	$(GO) run ./tools/benchserve -bin $(BIN) -runs $(SERVE_RUNS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Long fault-injection soaks, too slow for `make test`: the feed against
# the simulated venue, and the real dashboard in tmux against a faulty
# `tradedeck sim --rate busy`, side by side. `make soak SOAK=1h`.
SOAK ?= 5m
soak:
	TRADEDECK_SOAK=1 TRADEDECK_SOAK_DURATION=$(SOAK) $(GO) test -race -timeout 0 -run Soak -v ./feed/... ./e2e/...

clean:
	rm -rf bin
