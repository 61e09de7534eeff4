package human

import (
	"strings"
	"testing"
)

// ClipBytes clips in place, and neither clips a text that fits: they
// allocate nothing, whatever the text.
func TestClipAllocatesNothing(t *testing.T) {
	b := []byte(strings.Repeat("héllo wörld ", 40))
	if n := testing.AllocsPerRun(100, func() { _ = ClipBytes(b, 100) }); n != 0 {
		t.Errorf("ClipBytes allocates %v times", n)
	}
	s := strings.Repeat("wörld ", 40)
	if n := testing.AllocsPerRun(100, func() { _ = Clip(s, 1000) }); n != 0 {
		t.Errorf("Clip of a text that fits allocates %v times", n)
	}
}
