package message

import (
	"strings"
	"testing"
)

func TestJoiner(t *testing.T) {
	for _, parts := range [][]string{nil, {""}, {"a"}, {"a", ""}, {"", ""}, {"a", "b", "c"}} {
		var j Joiner
		for _, p := range parts {
			j.Add(p)
		}
		if got, want := j.String(), strings.Join(parts, "\n"); got != want || j.Len() != len(parts) {
			t.Errorf("Joiner(%q) = %q, %d; want %q, %d", parts, got, j.Len(), want, len(parts))
		}
	}
}
