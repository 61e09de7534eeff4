#!/usr/bin/env bash
# The whole suite (make test), quiet on success: each stage's output goes
# to a log that is printed only when the stage fails; a stage that passes
# prints one line as it finishes ("make test: vet ok (12s)"), and the run
# ends with a summary line.
#
#   stages: tools, vet, cross (builds for macOS and Windows), race (every package's tests under the race
#   detector, -short), long (the tests -short skipped, without it: see
#   scripts/gotest.sh), fixtures (generated fixtures current), otlp (the
#   OTLP export read by the OpenTelemetry Collector's own parser, in
#   e2e/otelcol's module), e2e (a real OpenClaw gateway, and a real
#   OpenTelemetry Collector), browser (the report in headless Chromium)
#
# SKIP_E2E=1 / SKIP_BROWSER=1 leave those stages out (for a quick run; CI
# runs everything).
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
# The tests that need jq and zstd (the --help examples) fail without them
# here, rather than skip as they do under a bare go test.
export CLAWTAP_REQUIRE_TOOLS=1
logs=$(mktemp -d "${TMPDIR:-/tmp}/clawtap-test.XXXXXX")
start=$(date +%s)
done_stages=()

# passed says a stage that started at $2 passed, as it finishes.
passed() {
  local secs=$(( $(date +%s) - $2 ))
  done_stages+=("$1 ${secs}s")
  echo "make test: $1 ok (${secs}s)"
}

stage() {
  local name=$1; shift
  if [ "$name" = setup ]; then
    # The background installs: their log is setup.log.
    local t0=$(date +%s)
    if "$@"; then passed setup-wait "$t0"; return 0; fi
    echo "make test: installing Node/openclaw/the collector/Chromium failed; its output:" >&2
    cat "$logs/setup.log" >&2
    exit 1
  fi
  local t0=$(date +%s)
  if "$@" >"$logs/$name.log" 2>&1; then
    passed "$name" "$t0"
    return 0
  fi
  echo "make test: stage $name failed; its output:" >&2
  cat "$logs/$name.log" >&2
  echo "make test: FAILED at $name (logs in $logs)" >&2
  exit 1
}

# The installs the later stages need (Node and openclaw from npm, the e2e
# OpenTelemetry Collector built from its Go modules, Chromium from Debian)
# run in the background while the Go tests run.
setup_pid=
if [ -z "${SKIP_E2E:-}" ] || [ -z "${SKIP_BROWSER:-}" ]; then
  ( { [ -n "${SKIP_E2E:-}" ] || { bash scripts/e2e-setup.sh && bash scripts/otelcol-setup.sh; }; } && bash scripts/chromium-setup.sh ) >"$logs/setup.log" 2>&1 &
  setup_pid=$!
fi

stage tools bash scripts/tools-setup.sh
stage vet $GO vet ./...
# clawtap builds for macOS and Windows too (the suite runs here, on Linux).
stage cross bash -c "GOOS=darwin $GO build -o /dev/null ./cmd/clawtap && GOOS=windows $GO build -o /dev/null ./cmd/clawtap"
# The Go tests, each once: every package under the race detector with
# -short, then what -short skipped without it (scripts/gotest.sh).
export GOTEST_SKIPPED=$logs/skipped
stage race bash scripts/gotest.sh race
stage long bash scripts/gotest.sh long
stage fixtures $GO run ./fixtures/gen -check
# e2e/otelcol is a module of its own (the collector's dependencies stay
# out of clawtap's go.mod), which ./... does not reach.
stage otlp bash -c "cd e2e/otelcol && $GO vet ./canon ./cmd/otlpcanon ./pdatacheck && $GO test -count=1 ./canon ./pdatacheck"
if [ -n "$setup_pid" ]; then
  stage setup wait "$setup_pid"
fi
if [ -z "${SKIP_E2E:-}" ]; then
  stage e2e $GO test -tags e2e -count=1 -timeout 20m ./e2e/
fi
if [ -z "${SKIP_BROWSER:-}" ]; then
  stage browser $GO test -tags browser -count=1 -timeout 15m -run Browser ./pkg/report/
fi
pkgs=$($GO list ./... | wc -l)
echo "make test: all passed in $(( $(date +%s) - start ))s ($pkgs packages; ${done_stages[*]})"
rm -rf "$logs"
