#!/usr/bin/env bash
# Instruction counts of clawtap's read commands on a prefix of a capture,
# next to `zstd -dc` on the same prefix: the work each does, whatever else
# the machine is running (bench/README.md, "Instructions"). valgrind's
# cachegrind counts every instruction of every thread (it runs them one at
# a time, so the wall time it takes means nothing).
#
#   bench/instructions.sh CAPTURE FRAMES BINARY [BINARY...]
#
# CAPTURE is cut to its header and first FRAMES lines (50000 is about 25 MB
# of frames and takes a minute a command); each BINARY is timed in turn, so
# a before and an after are counted on the same bytes. CLAWTAP_INSN_CMDS
# overrides the commands (a ';'-separated list; CAPTURE stands for the
# prefix). GOMAXPROCS is passed on as set (the count includes what the
# goroutines' hand-offs cost).
set -euo pipefail
if [ $# -lt 3 ]; then
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
cap=$1 frames=$2
shift 2
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
command -v zstd >/dev/null || { echo "instructions.sh: zstd is not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix.jsonl.zst
{ zstd -dcq "$cap" || true; } | head -n $((frames + 1)) | zstd -q -o "$prefix"

irefs() { # the instructions a command executes, all threads
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*I *refs: *//p' | tr -d ,
}

cmds=${CLAWTAP_INSN_CMDS:-"classify --format json CAPTURE;intents --format json CAPTURE;replay --final --format json CAPTURE;report --force -o /dev/null CAPTURE;check --format json CAPTURE;check --ui all --format json CAPTURE"}
floor=$(irefs zstd -dcq "$prefix")
printf '%-44s %16s %9s\n' "path ($frames frames)" instructions "× floor"
printf '%-44s %16s %9s\n' "floor: zstd -dc" "$floor" "1.00×"
for bin in "$@"; do
	IFS=';' read -ra list <<<"$cmds"
	for c in "${list[@]}"; do
		# shellcheck disable=SC2086
		n=$(irefs "$bin" ${c//CAPTURE/$prefix} || true)
		printf '%-44s %16s %8.2f×\n' "$(basename "$bin"): ${c% CAPTURE}" "$n" "$(echo "$n / $floor" | bc -l)"
	done
done
