package validate

import (
	"strconv"
	"strings"
)

// The schema describes protocol 4; a protocol 3 gateway (≤ 2026.5.7) sends
// frames that differ from it in known ways, and maybe others. On a protocol
// 3 connection every difference is one info finding the first time it
// occurs and a count after that: what changed, not a flood of errors.

// v3Known explains the differences the protocol's history documents
// (docs/validate.md lists them), by definition, pointer (array indices as
// *) and keyword.
var v3Known = map[string]string{
	"ChatEvent /payload/deltaText required":               "v3 deltas carry the whole text in message; deltaText (and replace) came with protocol 4",
	"HelloOk /payload/canvasHostUrl additionalProperties": "v3's hello-ok has canvasHostUrl, which protocol 4 replaced with pluginSurfaceUrls",
}

// normPointer replaces array indices with * so that the same field of
// every item is one difference.
func normPointer(ptr string) string {
	if ptr == "" {
		return ""
	}
	parts := strings.Split(ptr, "/")
	for i, p := range parts {
		if p != "" && isIndex(p) {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, "/")
}

// v3Key identifies one difference on one connection.
func v3Key(conn int, def, ptr string, vi violation) string {
	return strconv.Itoa(conn) + " " + def + " " + normPointer(ptr) + " " + vi.keyword + " " + vi.expected
}

// v3Why is the explanation of a known difference, as a clause, or "".
func v3Why(def, ptr string, vi violation) string {
	if why := v3Known[def+" "+normPointer(ptr)+" "+vi.keyword]; why != "" {
		return ": " + why
	}
	return ""
}
