package replay

import (
	"math/rand"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	// Changes 7 unchanged lines apart make two hunks (6 would merge, as in diff -u).
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	b := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := `--- golden
+++ replay
@@ -1,7 +1,7 @@
 a
 b
 c
-d
+D
 e
 f
 g
@@ -9,3 +9,4 @@
 i
 j
 k
+l
`
	if got := UnifiedDiff("golden", "replay", []byte(a), []byte(b)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if UnifiedDiff("a", "b", []byte(a), []byte(a)) != "" {
		t.Fatal("equal inputs gave a diff")
	}
	if got := UnifiedDiff("a", "b", nil, []byte("x\n")); got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
		t.Fatalf("from empty: %q", got)
	}
}

// TestEditScriptApplies checks on random inputs that the script turns a
// into b and is minimal against a simple LCS.
func TestEditScriptApplies(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for it := 0; it < 500; it++ {
		a := randLines(rng)
		b := randLines(rng)
		ops := editScript(a, b)
		var got []string
		ai, bi, edits := 0, 0, 0
		for _, op := range ops {
			switch op {
			case ' ':
				if a[ai] != b[bi] {
					t.Fatalf("keep of unequal lines")
				}
				got = append(got, a[ai])
				ai++
				bi++
			case '-':
				ai++
				edits++
			case '+':
				got = append(got, b[bi])
				bi++
				edits++
			}
		}
		if ai != len(a) || bi != len(b) || strings.Join(got, ",") != strings.Join(b, ",") {
			t.Fatalf("script %q does not turn %v into %v", ops, a, b)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("%d edits, minimal is %d", edits, want)
		}
	}
}

func randLines(rng *rand.Rand) []string {
	n := rng.Intn(12)
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + rng.Intn(4)))
	}
	return out
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}
