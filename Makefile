# clawtap — make targets. `make test` is the whole suite (what CI runs).
GO        ?= go
PKGS      := ./...
FUZZTIME  ?= 10s
BENCHTIME ?= 1x

.PHONY: all build install test unit race vet fixtures fixtures-check fuzz bench demo clean

all: build

build:
	$(GO) build -o bin/clawtap ./cmd/clawtap

install:
	$(GO) install ./cmd/clawtap

## test: everything CI runs — vet, unit and CLI tests (with -race), fixture freshness
test: vet unit fixtures-check

unit:
	$(GO) test -race -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

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
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -parallel 1 $$pkg; \
	  done; \
	done

## bench: frames per second on a large generated capture (see bench/)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count 1 ./bench/

demo:
	$(GO) run ./cmd/clawtap classify fixtures/demo.jsonl.zst

clean:
	rm -rf bin
