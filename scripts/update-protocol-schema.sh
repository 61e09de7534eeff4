#!/usr/bin/env bash
# Regenerate pkg/validate/schema/ — the snapshot of the gateway protocol's
# JSON Schema that `clawtap validate` embeds — from the npm package
# @openclaw/gateway-protocol (MIT).
#
#   bash scripts/update-protocol-schema.sh            # the version in VERSION again
#   bash scripts/update-protocol-schema.sh 2026.9.1   # another version
#   bash scripts/update-protocol-schema.sh latest     # whatever the latest tag is
#
# It uses npm as configured on this machine (npm pack into a temporary
# directory; nothing is installed, no node_modules is left behind), copies
# protocol.schema.json and LICENSE byte for byte, and writes VERSION with the
# package's name, version and licence and the snapshot's sha256. It never
# writes where the package came from. Review the diff, then run
# `go test ./pkg/validate/...`.
set -euo pipefail

pkg="@openclaw/gateway-protocol"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/pkg/validate/schema"

version="${1:-}"
if [[ -z "$version" ]]; then
	version="$(sed -n 's/^version=//p' "$out/VERSION" 2>/dev/null || true)"
fi
if [[ -z "$version" ]]; then
	echo "update-protocol-schema: no version given and none in $out/VERSION" >&2
	exit 2
fi
command -v npm >/dev/null || { echo "update-protocol-schema: npm is not installed" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# npm pack prints the tarball's file name on its last line of stdout.
tgz="$(cd "$tmp" && npm pack --silent "$pkg@$version" 2>/dev/null | tail -n 1)"
if [[ -z "$tgz" || ! -f "$tmp/$tgz" ]]; then
	echo "update-protocol-schema: npm pack $pkg@$version failed" >&2
	exit 2
fi
tar -xzf "$tmp/$tgz" -C "$tmp"
src="$tmp/package"
for f in protocol.schema.json LICENSE package.json; do
	[[ -f "$src/$f" ]] || { echo "update-protocol-schema: $pkg@$version has no $f" >&2; exit 2; }
done

# The package's own name, version and licence, read with node (npm needs it anyway).
read -r name got license < <(node -e '
	const p = require(process.argv[1]);
	console.log(p.name, p.version, p.license || "UNKNOWN");
' "$src/package.json")
if [[ "$name" != "$pkg" ]]; then
	echo "update-protocol-schema: the tarball is $name, not $pkg" >&2
	exit 2
fi
if [[ "$license" != "MIT" ]]; then
	echo "update-protocol-schema: $pkg@$got is licensed $license, not MIT: check before shipping it" >&2
	exit 2
fi

mkdir -p "$out"
cp "$src/protocol.schema.json" "$out/protocol.schema.json"
cp "$src/LICENSE" "$out/LICENSE"
sum="$(sha256sum "$out/protocol.schema.json" | cut -d' ' -f1)"
cat >"$out/VERSION" <<EOF
package=$pkg
version=$got
license=$license
sha256=$sum
EOF
echo "update-protocol-schema: $pkg@$got -> pkg/validate/schema (sha256 $sum)"
