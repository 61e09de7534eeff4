package diff

import (
	"strconv"
	"testing"
)

// TestNormaliserBounded: values are named by first appearance and keep
// their name while remembered; a kind remembers its last maxNames values,
// so its table stays that small however many values a capture has, and a
// value seen again after that many newer ones gets a new name.
func TestNormaliserBounded(t *testing.T) {
	var n normaliser
	if got := n.name("run", "a"); got != "run#1" {
		t.Fatalf("first run: %s", got)
	}
	if got := n.name("req", "a"); got != "req#1" {
		t.Fatalf("kinds are numbered apart: %s", got)
	}
	if got := n.name("run", ""); got != "" {
		t.Fatalf("empty value: %q", got)
	}
	for i := 2; i <= maxNames; i++ {
		if got, want := n.name("run", "v"+strconv.Itoa(i)), "run#"+strconv.Itoa(i); got != want {
			t.Fatalf("value %d: %s, want %s", i, got, want)
		}
	}
	if got := n.name("run", "a"); got != "run#1" {
		t.Fatalf("a remembered value lost its name: %s", got)
	}
	for i := maxNames + 1; i <= 3*maxNames; i++ {
		n.name("run", "v"+strconv.Itoa(i))
	}
	k := n.kinds["run"]
	if len(k.of) != maxNames || len(k.order) != maxNames {
		t.Fatalf("table holds %d values (ring %d), want %d", len(k.of), len(k.order), maxNames)
	}
	if got, want := n.name("run", "a"), "run#"+strconv.Itoa(3*maxNames+1); got != want {
		t.Fatalf("a value seen again after %d newer ones: %s, want %s", 3*maxNames, got, want)
	}
	if got, want := n.name("run", "v"+strconv.Itoa(3*maxNames)), "run#"+strconv.Itoa(3*maxNames); got != want {
		t.Fatalf("the newest value: %s, want %s", got, want)
	}
}
