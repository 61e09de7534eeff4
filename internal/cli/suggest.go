package cli

import (
	"strings"
	"unicode/utf8"
)

// SuggestFlag is the flag among names (without dashes) that an unknown
// flag (the parser's error text, as "unknown flag: --fromat") most likely
// meant: within an edit or two, or the only one it is a prefix of; "" when
// none stands out. Cobra suggests mistyped commands; this does the same
// for flags.
func SuggestFlag(errText string, names []string) string {
	_, after, ok := strings.Cut(errText, "unknown flag: --")
	if !ok {
		return ""
	}
	typed, _, _ := strings.Cut(after, "=")
	typed = strings.TrimSpace(typed)
	if typed == "" {
		return ""
	}
	// One edit for a short name, two for a longer: "fo" is not "from".
	maxD := 1
	if utf8.RuneCountInString(typed) > 4 {
		maxD = 2
	}
	best, bestD, ties := "", maxD+1, 0
	var prefixed []string
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue // a flag listed twice (local and inherited) is one
		}
		seen[n] = true
		if strings.HasPrefix(n, typed) {
			prefixed = append(prefixed, n)
		}
		switch d := distance(typed, n); {
		case d < bestD:
			best, bestD, ties = n, d, 0
		case d == bestD:
			ties++
		}
	}
	if best != "" && ties == 0 {
		return best
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// distance is the edit distance of a and b (a swap of two neighbours is
// one edit, the mistake typing makes most), capped at 3 for long words.
func distance(a, b string) int {
	if utf8.RuneCountInString(a) > 64 || utf8.RuneCountInString(b) > 64 {
		return 3
	}
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
