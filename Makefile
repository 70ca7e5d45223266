# tradedeck: `make run` opens the dashboard on the embedded simulated venue,
# `make test` runs every test (vet + race detector).
GO       ?= go
BIN      ?= bin/tradedeck
PKGS     ?= ./...
BENCHTIME ?= 1s
COUNT    ?= 6

.PHONY: run build test bench lint soak clean

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
