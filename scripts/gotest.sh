#!/usr/bin/env bash
# Every package's Go tests, each test once (make unit, and make test's
# race and long stages):
#
#   race  go test -race -short ./...: every package under the race
#         detector. -short skips the tests that measure memory or
#         throughput on large generated captures (the detector multiplies
#         both), the ones whose code runs on one goroutine over a large
#         capture or every fixture (skipLarge: nothing there for the
#         detector to find, at 10-60 times the cost), and the ones that
#         build clawtap and run its examples.
#   long  the tests the race stage skipped, run once more without the
#         detector and without -short (whatever skipped them: a test that
#         skips for another reason skips again, at no cost).
#
# No package list is kept by hand: both stages take ./..., and the long
# stage's tests are the ones the race stage reported as skipped.
#
# Measured on a two-core machine (go test -count=1, the build cache warm;
# another job's tests ran beside it, load average 2-6, so the wall times
# are long: user+sys CPU in brackets):
#   go test ./...                1m44s        (2m40s CPU)  no race
#   race: go test -race -short   1m34s        (2m14s CPU)
#   long: what -short skipped    1m03s        (2m01s CPU)  bench's memory
#                                                  tests alone take 39-60s
#   both (make unit)             2m44s-2m57s  (3m58s-4m24s CPU)
#   both, nothing else running   2m05s        (3m44s CPU)
# (3m41s, 6m09s CPU, idle, before: the race stage ran more of the large
# one-goroutine tests, some tests read larger captures than they needed,
# and each race-built process slept a second as it exited.) Running ./...
# twice instead (plain, then race -short) runs every test but the skipped
# ones twice. Under the race detector the byte-at-a-time JSON scanning
# (pkg/jsonx) costs 10-60 times its plain time: the race stage keeps the
# tests where goroutines meet.
#
# usage: scripts/gotest.sh [race|long]   (none: both)
# The race stage writes the tests it skipped to $GOTEST_SKIPPED (a
# temporary file when unset), which the long stage reads. Needs jq.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
what=${1:-all}
# Test binaries linked without DWARF (-w): a quarter less link time for
# each of the 60 or so the two stages link. Panics, and the race
# detector's reports, still name functions, files and lines (from the
# binary's own tables); only a debugger wants DWARF.
ldflags=-ldflags=-w
# The tests are built without cmd/clawtap's profile (default.pgo, make pgo),
# so its test binary shares every other package's build; the binary the
# tests run as a process (the --help examples, e2e) is built with it.
pgo=-pgo=off
tmp=
if [ -z "${GOTEST_SKIPPED:-}" ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/clawtap-gotest.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  GOTEST_SKIPPED=$tmp/skipped
fi
if ! command -v jq >/dev/null 2>&1; then
  echo "gotest: needs jq (bash scripts/tools-setup.sh installs it)" >&2
  exit 1
fi

race() {
  local json=${GOTEST_SKIPPED}.json rc
  # A race-built process sleeps a second as it exits (atexit_sleep_ms),
  # for goroutines still running then to be caught racing: a second of
  # wall time for each package's test binary and each clawtap process
  # the tests start. Not here (GORACE set beforehand adds to or overrides
  # this). A line per package as it finishes ("ok  pkg  12.3s"), as go
  # test prints without -json.
  GORACE="atexit_sleep_ms=0${GORACE:+ $GORACE}" \
    $GO test -race -short -count=1 "$ldflags" "$pgo" -json ./... | tee "$json" |
    jq -rj --unbuffered 'select(.Action == "output" and .Test == null and (.Output | test("^(ok|FAIL|\\?)\\s"))) | .Output'
  rc=${PIPESTATUS[0]}
  # Each skipped test, as "package test" (a skipped subtest: its test).
  jq -r 'select(.Action == "skip" and .Test != null) | "\(.Package) \(.Test | split("/")[0])"' "$json" | sort -u >"$GOTEST_SKIPPED"
  if [ "$rc" != 0 ]; then
    # What go test prints of a failure: the output of each test that
    # failed and of each package that did (and any build's errors).
    jq -rj --slurp '
      [.[] | select(.Action == "fail") | "\(.Package) \(.Test // "")"] as $failed
      | .[] | select(.Action == "build-output" or (.Action == "output"
          and ("\(.Package) \(.Test // "")" as $k | any($failed[]; . == $k))))
      | .Output' "$json"
    echo "gotest: the race stage failed (go test -race -short -count=1 ./...)"
  fi
  return "$rc"
}

long() {
  if [ ! -s "$GOTEST_SKIPPED" ]; then
    echo "gotest: no test was skipped under -short"
    return 0
  fi
  local pkgs tests
  pkgs=$(cut -d' ' -f1 "$GOTEST_SKIPPED" | sort -u | tr '\n' ' ')
  tests=$(cut -d' ' -f2 "$GOTEST_SKIPPED" | sort -u | paste -sd'|')
  # shellcheck disable=SC2086
  $GO test -count=1 "$ldflags" "$pgo" -run "^($tests)\$" $pkgs
}

case $what in
  race) race ;;
  long) long ;;
  all) race && long ;;
  *) echo "usage: scripts/gotest.sh [race|long]" >&2; exit 2 ;;
esac
