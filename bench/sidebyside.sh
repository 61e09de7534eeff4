#!/usr/bin/env bash
# clawtap next to clawboo's own classify + policy (on Node) and two stable
# anchors, `zstd -dc` and `jq -c .`, on one capture, in alternating rounds:
# the median wall time of each, and its ratio to `zstd -dc` measured in the
# same rounds (bench/README.md, "Side by side").
#
#   bench/sidebyside.sh CLAWBOO_CHECKOUT CAPTURE [ROUNDS] [CLAWTAP]
#
# CLAWBOO_CHECKOUT is your own clone of github.com/clawboo/clawboo (nothing
# of it is in this repository); NODE names the node binary (22.18 or later:
# it runs clawboo's TypeScript as it is), `node` on the PATH otherwise.
# CLAWTAP is the clawtap binary (default: bin/clawtap, `make build`).
# NOJQ=1 leaves jq out (it takes a minute on a million frames).
set -euo pipefail
if [ $# -lt 2 ]; then
	sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
checkout=$1 cap=$2 rounds=${3:-5} clawtap=${4:-bin/clawtap}
node=${NODE:-node}
here=$(cd "$(dirname "$0")" && pwd)
declare -A t
names=()
time1() { # name command...: one timed run, output to /dev/null
	local name=$1
	shift
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	[[ -v t[$name] ]] || names+=("$name")
	t[$name]+="$(echo "$e - $s" | bc) "
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for ((r = 1; r <= rounds; r++)); do
	time1 "zstd -dc" zstd -dcq "$cap"
	[ -n "${NOJQ:-}" ] || time1 "zstd -dc | jq -c ." bash -c 'zstd -dcq "$1" | jq -c . >/dev/null' _ "$cap"
	time1 "clawboo classify+policy (node $("$node" --version))" "$node" "$here/clawboo-intents.mjs" "$checkout" "$cap"
	time1 "clawtap classify --format json" "$clawtap" classify --format json "$cap"
	time1 "clawtap intents --format json" "$clawtap" intents --format json "$cap"
	echo "round $r/$rounds done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
floor=$(echo "${t["zstd -dc"]}" | median)
printf '%-48s %9s %9s\n' path "median s" "× zstd"
for n in "${names[@]}"; do
	m=$(echo "${t[$n]}" | median)
	printf '%-48s %9.2f %8.1f×\n' "$n" "$m" "$(echo "$m / $floor" | bc -l)"
done
