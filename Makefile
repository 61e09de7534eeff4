# clawtap — make targets. `make test` is the whole suite (what CI runs).
GO        ?= go
PKGS      := ./...
FUZZTIME  ?= 10s
# how long the fuzzer may shrink an input it keeps: Go's default (60s) spends a
# short FUZZTIME shrinking the corpus of the whole-pass targets instead of fuzzing
FUZZMIN   ?= 1s
BENCHTIME ?= 1x
# clawtap itself is built without cgo: nothing in it needs C, and a static
# binary maps no libc, 2.4 MB less resident memory (bench/README.md, "Memory")
STATIC    := CGO_ENABLED=0

.PHONY: all build install test unit vet fixtures fixtures-check fuzz bench bench-micro pgo demo clean e2e e2e-deps otlp-check chromium browser-test

all: build

build:
	$(STATIC) $(GO) build -o bin/clawtap ./cmd/clawtap

## install: build clawtap (static) into $(go env GOBIN), else the first
## folder of $(go env GOPATH) + /bin, say where, and what to add to PATH
## when that folder is not on it
install:
	$(STATIC) $(GO) install ./cmd/clawtap
	@dir="$$($(GO) env GOBIN)"; [ -n "$$dir" ] || dir="$$($(GO) env GOPATH | cut -d: -f1)/bin"; \
	echo "make install: installed $$dir/clawtap"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "make install: $$dir is not on your PATH; add it, e.g. in ~/.profile:"; \
	  echo "  export PATH=\"$$dir:\$$PATH\"" ;; esac

## test: the whole suite, what CI runs, quiet on success (a line per stage
## as it finishes, then a summary; a failing stage prints its log) — vet,
## every package's tests under the race detector (-short; then what -short
## skipped, without it), fixture freshness, the end-to-end tests against a
## real OpenClaw gateway and a real OpenTelemetry Collector, and the
## report's browser tests (installs jq and zstd, Node 24, openclaw and the
## collector into ~/.cache/clawtap-e2e, and Debian's Chromium, on first use)
test:
	@bash scripts/test.sh

## unit: every package's tests, each once: under the race detector with
## -short, then the tests -short skipped without it (scripts/gotest.sh;
## needs jq, which scripts/tools-setup.sh installs)
unit:
	@GO=$(GO) bash scripts/gotest.sh

vet:
	$(GO) vet $(PKGS)

## e2e: end-to-end tests against a real OpenClaw gateway, started on loopback
## with a fake model, and a real OpenTelemetry Collector; Node 24 + openclaw
## and the collector (built from e2e/otelcol's modules) are cached in
## ~/.cache/clawtap-e2e
e2e: e2e-deps chromium
	$(GO) test -tags e2e -count=1 -v -timeout 20m ./e2e/

e2e-deps:
	bash scripts/e2e-setup.sh
	bash scripts/otelcol-setup.sh

## otlp-check: the OTLP export of every fixture read by the collector's own
## parser (pdata), in e2e/otelcol's module (make test runs it too)
otlp-check:
	cd e2e/otelcol && $(GO) vet ./canon ./cmd/otlpcanon ./pdatacheck && $(GO) test -count=1 ./canon ./pdatacheck

## chromium: Debian's Chromium for the browser tests (installed when missing, as root)
chromium:
	bash scripts/chromium-setup.sh

## browser-test: the HTML report in a real headless Chromium (CLAWTAP_SHOTS=dir keeps the screenshots)
browser-test: chromium
	$(GO) test -tags browser -count=1 -v -timeout 15m -run Browser ./pkg/report/

## fixtures: regenerate fixtures/ from the generator (review the diff!)
fixtures:
	$(GO) run ./fixtures/gen

fixtures-check:
	$(GO) run ./fixtures/gen -check

## fuzz: run every fuzz target for FUZZTIME each
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$target"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) -parallel 1 $$pkg; \
	  done; \
	done

## bench: the real binary's commands on a generated capture of a million
## frames (CLAWTAP_BENCH_FRAMES to change), each timed as a child process
## against the floor (zstd -dc and Go's decoder) in alternating rounds, with
## peak RSS and the targets (bench/README.md); then record against a
## synthetic fast gateway on loopback. BENCH_ARGS passes flags to the
## harness (-rounds 3, -only classify, -bin other/clawtap, -json out.json).
bench:
	$(GO) build -o bin/clawtap-bench ./bench/run
	./bin/clawtap-bench $(BENCH_ARGS)
	$(GO) test -run '^$$' -bench RecordFastGateway -benchmem -benchtime 300000x -count 1 ./pkg/record/

## pgo: regenerate cmd/clawtap/default.pgo, the CPU profile go build uses to
## optimise clawtap, from its commands on a generated capture (scripts/pgo.sh;
## review the figures: bench/README.md, "Profile-guided build")
pgo:
	@GO=$(GO) bash scripts/pgo.sh

## bench-micro: the Go benchmarks behind it, in process and on one core
## (for profiling: add -cpuprofile), and the report in a real browser
bench-micro:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -cpu 1 -count 1 ./bench/
	@if command -v chromium >/dev/null; then $(GO) test -tags browser -run '^$$' -bench BrowserLarge -benchtime 1x -count 1 ./pkg/report/; \
	else echo "make bench-micro: no chromium, BenchmarkBrowserLarge left out (make chromium installs it)"; fi

demo:
	$(GO) run ./cmd/clawtap classify fixtures/demo.jsonl.zst

clean:
	rm -rf bin
