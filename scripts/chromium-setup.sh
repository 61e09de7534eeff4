#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the browser tests (the report
# test and the Control UI end-to-end test). Installs it with apt when missing
# and running as root; otherwise says what to run.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  chromium --version 2>/dev/null || true
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "chromium-setup: Chromium is not installed; run: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "chromium-setup: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
chromium --version
