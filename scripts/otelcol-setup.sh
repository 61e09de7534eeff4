#!/usr/bin/env bash
# Builds what the e2e suite's OpenTelemetry test needs, from e2e/otelcol
# (a Go module of its own, so that the collector's dependencies never
# reach clawtap's go.mod):
#
#   otelcol-e2e  an OpenTelemetry Collector built from the upstream
#                collector modules pinned in e2e/otelcol/go.mod: the OTLP
#                receiver and the file exporter, nothing else
#   otlpcanon    reads OTLP JSON Lines with the collector's own parser
#                (pdata) and prints each span in the collector's form
#
# Both go into the cache, in a folder named by a hash of e2e/otelcol's
# go.mod, go.sum and Go sources: a run whose sources match a build reuses
# it (a cold build downloads about 120 MB of modules and takes 3-8 minutes
# on a shared two-core machine; cached, this script takes a second). Older
# builds are removed.
#
#   bash scripts/otelcol-setup.sh      # build if missing, print the env
#
# Environment: CLAWTAP_E2E_CACHE (default ~/.cache/clawtap-e2e), GO.
# On success it writes $CLAWTAP_E2E_CACHE/otelcol.env (OTELCOL=...,
# OTLPCANON=..., OTELCOL_CONFIG=...), which the e2e test reads, and prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
CACHE="${CLAWTAP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clawtap-e2e}"
SRC=e2e/otelcol
mkdir -p "$CACHE/otelcol"

hash=$( (cd "$SRC" && cat go.mod go.sum $(find . -name '*.go' ! -name '*_test.go' | LC_ALL=C sort) config.yaml) | sha256sum | cut -c1-16)
dir="$CACHE/otelcol/$hash"
if [[ ! -x "$dir/otelcol-e2e" || ! -x "$dir/otlpcanon" ]]; then
  t0=$(date +%s)
  echo "otelcol-setup: building the collector and otlpcanon ($hash) into $dir" >&2
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  (cd "$SRC" && CGO_ENABLED=0 $GO build -trimpath -o "$dir.tmp/otelcol-e2e" . &&
    CGO_ENABLED=0 $GO build -trimpath -o "$dir.tmp/otlpcanon" ./cmd/otlpcanon) >&2
  cp "$SRC/config.yaml" "$dir.tmp/config.yaml"
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  echo "otelcol-setup: built in $(( $(date +%s) - t0 )) s" >&2
  for old in "$CACHE"/otelcol/*; do
    [[ "$old" == "$dir" ]] || rm -rf "$old"
  done
fi

cat > "$CACHE/otelcol.env.tmp" <<ENV
OTELCOL=$dir/otelcol-e2e
OTLPCANON=$dir/otlpcanon
OTELCOL_CONFIG=$dir/config.yaml
ENV
mv "$CACHE/otelcol.env.tmp" "$CACHE/otelcol.env"
cat "$CACHE/otelcol.env"
