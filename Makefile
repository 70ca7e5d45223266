# tradedeck: `make run` opens the dashboard on the embedded simulated venue,
# `make test` runs every test (vet + race detector).
GO       ?= go
BIN      ?= bin/tradedeck
PKGS     ?= ./...
BENCHTIME ?= 1s
COUNT    ?= 6

.PHONY: run build test bench bench-serve bench-cpu lint soak stress mutate clean

run: build
	./$(BIN)

# CGO_ENABLED=0: the only cgo is the standard library's (DNS resolver,
# os/user), whose pure-Go versions serve as well; a static binary maps no
# libc or loader and starts no cgo threads: the dashboard's RSS is ~3 MiB
# lower (docs/ui.md "Memory").
# -buildvcs=auto: `tradedeck --version` names the commit it was built from
# even where GOFLAGS turns VCS stamping off (this machine's does); a tree
# without git still builds.
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o $(BIN) .

# FORKS: our forks of ultraviolet and bubbletea (third_party/README.md)
# are modules of their own; their upstream tests run against the fork, and
# tools/forkpatches.sh checks each is its upstream release plus
# third_party/patches (after changing a fork: tools/forkpatches.sh update).
FORKS    ?= third_party/ultraviolet third_party/bubbletea

test:
	./tools/forkpatches.sh check
	$(GO) vet $(PKGS)
	$(GO) test -race -timeout 15m $(PKGS)
	for m in $(FORKS); do (cd $$m && $(GO) test -count=1 ./...) || exit 1; done

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

# CPU of the real binary in a pty against a separate `tradedeck sim`:
# issue 28's workloads (busy/calm at 200x60 and 160x48, an idle screen,
# 100 symbols, `watch`), CPU % from /proc, frames/s, bytes/s, RSS, CPU
# per message of `watch`; medians of CPU_ROUNDS rounds (docs/ui.md "CPU").
# `make bench-cpu CPU_ONLY=busy-200x60,watch-busy`.
CPU_ROUNDS ?= 3
CPU_ONLY   ?=
bench-cpu: build
	$(GO) run ./tools/benchcpu -bin $(BIN) -rounds $(CPU_ROUNDS) -only '$(CPU_ONLY)'

# golangci-lint v2, pinned and installed like gremlins (.golangci.yml says
# which linters and why); .ci/run runs it after the tests.
GOLANGCI ?= github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0
lint:
	GOFLAGS= $(GO) install $(GOLANGCI)
	$$($(GO) env GOPATH)/bin/golangci-lint run ./...

# Long fault-injection soaks, too slow for `make test`: the feed against
# the simulated venue, and the real dashboard in tmux against a faulty
# `tradedeck sim --rate busy`, side by side. `make soak SOAK=1h`.
SOAK ?= 5m
# `make test` RUNS times in a row under BUSY busy loops (issue 19; about
# an hour on this 2-core machine): make stress RUNS=10 BUSY=2
stress:
	./tools/stress.sh

soak:
	TRADEDECK_SOAK=1 TRADEDECK_SOAK_DURATION=$(SOAK) $(GO) test -race -timeout 0 -run Soak -v ./feed/... ./e2e/...

# Mutation testing (not part of `make test`; see docs/testing.md): gremlins
# mutates one package at a time and runs its tests; tools/mutcheck then
# tests the mutants gremlins marks NOT COVERED (Go's coverage profile leaves
# out switch-case conditions) and prints the kill rate counting every
# mutant. Reports land in .mutate/. GOFLAGS=-count=1: gremlins times each
# mutant's test run by its coverage run, which a cached result would make
# look instant. CPU is shared: one worker by default;
# MUTATE_PKGS=trade make mutate runs one package.
GREMLINS       ?= github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE_PKGS    ?= fixed trade feed/book sim/engine venue venue/stream stats feed sim/exchange
MUTATE_WORKERS ?= 1
MUTATE_OUT     ?= .mutate
# Per package: the files outside the money paths, as gremlins -E regexps
# (relative to the package). feed: account and reconciliation only.
MUTATE_EXCLUDE_venue = -E '^(api|client|endpoints|routes)\.go$$' -E '^stream/'
MUTATE_EXCLUDE_feed  = -E '^(book|coalesce|ws)/' -E '^(collect|config|feed|health|market|types)\.go$$'
MUTATE_EXCLUDE_sim/exchange = -E '^(backfill|hooks_ws|seed|universe|state|history|events|queries)\.go$$'

mutate:
	GOFLAGS= $(GO) install $(GREMLINS)
	mkdir -p $(MUTATE_OUT)
	@set -e; gremlins=$$($(GO) env GOPATH)/bin/gremlins; \
	for p in $(MUTATE_PKGS); do \
		n=$$(echo $$p | tr / _); \
		case $$p in \
			venue) ex="$(MUTATE_EXCLUDE_venue)" ;; \
			feed) ex="$(MUTATE_EXCLUDE_feed)" ;; \
			sim/exchange) ex="$(MUTATE_EXCLUDE_sim/exchange)" ;; \
			*) ex="-E '^[^/]+/'" ;; \
		esac; \
		echo "== $$p"; \
		eval GOFLAGS=-count=1 $$gremlins unleash --workers $(MUTATE_WORKERS) --test-cpu 1 --timeout-coefficient 5 $$ex \
			-o $(MUTATE_OUT)/$$n.json ./$$p > $(MUTATE_OUT)/$$n.log 2>&1; \
		$(GO) run ./tools/mutcheck -report $(MUTATE_OUT)/$$n.json -dir $$p > $(MUTATE_OUT)/$$n.txt; \
		grep -h "surviving\|killed" $(MUTATE_OUT)/$$n.txt; \
	done

clean:
	rm -rf bin
