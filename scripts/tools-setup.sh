#!/usr/bin/env bash
# Makes sure the command-line tools the test suite uses are installed:
# jq and zstd (the --help examples pipe through them). Installs them with
# apt when missing and running as root; otherwise says what to run.
set -euo pipefail
missing=()
command -v jq >/dev/null 2>&1 || missing+=(jq)
command -v zstd >/dev/null 2>&1 || missing+=(zstd)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "tools-setup: missing ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
