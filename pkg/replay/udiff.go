package replay

import (
	"strconv"
	"strings"
)

// UnifiedDiff returns a unified diff (3 lines of context) that turns a
// into b, or "" when they are equal. Lines are compared exactly.
func UnifiedDiff(aName, bName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	ops := editScript(al, bl)
	var sb strings.Builder
	sb.WriteString("--- " + aName + "\n+++ " + bName + "\n")
	const ctx = 3
	// Walk the script, emitting hunks around changes.
	type line struct {
		op   byte
		text string
		ai   int // line numbers (1-based) in a and b before this line
		bi   int
	}
	var all []line
	ai, bi := 0, 0
	for _, op := range ops {
		switch op {
		case ' ':
			all = append(all, line{' ', al[ai], ai, bi})
			ai++
			bi++
		case '-':
			all = append(all, line{'-', al[ai], ai, bi})
			ai++
		case '+':
			all = append(all, line{'+', bl[bi], ai, bi})
			bi++
		}
	}
	for i := 0; i < len(all); {
		if all[i].op == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i
		// Extend while changes are within 2·ctx of each other.
		for j := i; j < len(all); j++ {
			if all[j].op != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(end+ctx+1, len(all))
		na, nb := 0, 0
		for _, l := range all[start:stop] {
			if l.op != '+' {
				na++
			}
			if l.op != '-' {
				nb++
			}
		}
		sa, sbb := all[start].ai+1, all[start].bi+1
		if na == 0 {
			sa--
		}
		if nb == 0 {
			sbb--
		}
		sb.WriteString("@@ -" + hunkRange(sa, na) + " +" + hunkRange(sbb, nb) + " @@\n")
		for _, l := range all[start:stop] {
			sb.WriteByte(l.op)
			sb.WriteString(l.text)
			sb.WriteByte('\n')
		}
		i = stop
	}
	if !strings.HasSuffix(string(a), "\n") && len(a) > 0 || !strings.HasSuffix(string(b), "\n") && len(b) > 0 {
		sb.WriteString("\\ (a file does not end with a newline)\n")
	}
	return sb.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// maxEdit bounds the Myers search; past it the differing middle is shown
// as removed and re-added, which is still a correct diff.
const maxEdit = 4000

// editScript returns the shortest edit script from a to b as a string of
// ' ' (keep), '-' (delete from a) and '+' (insert from b) — Myers' O(ND)
// algorithm on the part between the common prefix and suffix.
func editScript(a, b []string) []byte {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	out := make([]byte, 0, len(a)+len(b))
	for i := 0; i < pre; i++ {
		out = append(out, ' ')
	}
	mid, ok := myers(ma, mb)
	if !ok {
		mid = mid[:0]
		for range ma {
			mid = append(mid, '-')
		}
		for range mb {
			mid = append(mid, '+')
		}
	}
	out = append(out, mid...)
	for i := 0; i < suf; i++ {
		out = append(out, ' ')
	}
	return out
}

func myers(a, b []string) ([]byte, bool) {
	n, m := len(a), len(b)
	limit := n + m
	if limit > maxEdit {
		limit = maxEdit
	}
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int // trace[d] = v before step d, for k in [-d, d]
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		snap := make([]int, 2*d+1)
		copy(snap, v[off-d:off+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return nil, false
	}
	// Backtrack from (n, m).
	rev := make([]byte, 0, n+m)
	x, y := n, m
	for d := found; d > 0; d-- {
		prev := trace[d] // v after step d-1, indexed k+d
		get := func(k int) int {
			i := k + d
			if i < 0 || i >= len(prev) {
				return -1
			}
			return prev[i]
		}
		k := x - y
		var pk int
		if k == -d || k != d && get(k-1) < get(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(pk)
		insert := pk == k+1
		sx := px + 1 // the snake after a deletion starts at (px+1, py)
		if insert {
			sx = px // after an insertion at (px, py+1)
		}
		for x > sx {
			rev = append(rev, ' ')
			x--
			y--
		}
		if insert {
			rev = append(rev, '+')
			y--
		} else {
			rev = append(rev, '-')
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, ' ')
		x--
		y--
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev, true
}
