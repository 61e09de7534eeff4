#!/usr/bin/env bash
# make pgo: regenerates cmd/clawtap/default.pgo, the CPU profile that go
# build and go install use by themselves to optimise clawtap (Go's
# profile-guided optimisation: hot calls inlined, hot indirect calls
# devirtualised, hot code laid out together).
#
# The profile is of clawtap's own commands on a generated capture of
# realistic frames: a seed other than the benchmark's (make bench uses seed
# 1), so the benchmark does not measure the very input the compiler was
# trained on. A profile gone stale as the code changes still builds the
# same program, only less optimised; regenerate it after large changes to
# the pipeline and measure (bench/README.md, "Profile-guided build").
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FRAMES=${PGO_FRAMES:-200000}
SEED=7
work=$(mktemp -d "${TMPDIR:-/tmp}/clawtap-pgo.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The profile is taken of a build without one, so it does not feed on itself.
CGO_ENABLED=0 $GO build -pgo=off -o "$work/clawtap" ./cmd/clawtap
$GO build -o "$work/bench" ./bench/run
"$work/bench" -generate "$work/big.jsonl.zst" "$FRAMES" "$SEED"
# validate spends its time in the schema library: a tenth of the frames, so
# it does not outweigh the rest.
"$work/bench" -generate "$work/small.jsonl.zst" $((FRAMES / 10)) "$SEED"

n=0
profile() { # profile CAPTURE ARGS...: one command's profile; exit 1 (a finding) is fine
  local cap=$1; shift
  n=$((n + 1))
  local code=0
  CLAWTAP_CPUPROFILE="$work/$n.pprof" "$work/clawtap" "$@" "$cap" -o /dev/null --force 2>"$work/$n.err" || code=$?
  if [ "$code" -gt 1 ]; then
    echo "make pgo: clawtap $* failed (exit $code):" >&2
    cat "$work/$n.err" >&2
    exit 1
  fi
}
big=$work/big.jsonl.zst
profile "$big" classify --format json
profile "$big" intents --format json
profile "$big" replay --final --format json
profile "$big" replay --format text
profile "$big" check --format json
profile "$big" check --ui all --format json
profile "$big" stats --format json
profile "$big" gaps --format json
profile "$big" report
profile "$big" report --format otlp
profile "$big" diff --ui clawboo,claw3d --format json
profile "$work/small.jsonl.zst" validate --format json

$GO tool pprof -proto "$work"/*.pprof >"$work/default.pgo" 2>/dev/null
mv "$work/default.pgo" cmd/clawtap/default.pgo
echo "make pgo: cmd/clawtap/default.pgo from $n commands on $FRAMES generated frames (seed $SEED)"
