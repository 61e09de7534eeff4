package redact

import "encoding/binary"

// A tool's output repeats a dozen names a rule reads thousands of times
// (`tokens=`, `method=`, `"inputTokens":`), and each costs some thousand
// instructions to judge: the name read back, normalised and classed. What
// is judged of the name does not depend on its value, and reads no further
// back than the byte before it: the pre-scan of a frame remembers the
// verdicts of the names it met, each under the bytes from there to the
// ':' or '=' (TestNameVerdictFromWindow holds the verdicts to that).

// nameMemo holds the verdicts of names met lately, each under its window:
// the bytes from the last one before the name that is no part of it (nor
// a quote or backslash) to the ':' or '=' itself. A window is found again
// without being looked for: the 32 bytes that end at a ':' or '=' are
// compared with each remembered one's where its window lies, four at a
// time, in the set their last eight pick.
type nameMemo struct {
	sets [nameMemoSets][nameMemoWays]memoEnt
	hand [nameMemoSets]uint8 // the way to replace next
}

type memoEnt struct {
	// key is the 32 bytes that ended at the ':' or '=', as little-endian
	// words; mask has the bits of its window's bytes.
	key, mask [4]uint64
	n         int // the window's length; 0: empty
	v         nameVerdict
}

const (
	nameMemoSets, nameMemoWays = 32, 4
	nameWindowMax              = 32
)

// nameSoft are the bytes a window goes back over: a name's, quotes and
// backslashes (an escaped quote around a name in JSON text).
var nameSoft = func() (t [256]bool) {
	t = nameBytes
	t['"'], t['\''], t['\\'] = true, true, true
	return t
}()

// nameWindow is where the window of the ':' or '=' b[i] starts, or -1
// when the memo is not used there: a window longer than nameWindowMax,
// or too near the frame's start for the first tests' fixed reads.
func nameWindow(b []byte, i int) int {
	j := skipBlankBack(b, i)
	if j < 8 || endsKeyOrSig(b, 8, j) {
		return -1 // judgeName would not remember it
	}
	for h := j - 1; h >= 8 && i-h < nameWindowMax; h-- {
		if !nameSoft[b[h]] {
			return h
		}
	}
	return -1
}

// verdict returns the verdict of the name before the ':' or '=' b[i] that
// the first tests (quietName and the like, then nameMayMatch) did not
// turn down: mayEndLoud, then colonName or assignName, from the memo
// when its window was met before. It is nil when the memo is not used
// there; then the caller judges as without it.
func (m *nameMemo) verdict(b []byte, i int) *nameVerdict {
	if i < nameWindowMax-1 {
		return nil
	}
	w3 := binary.LittleEndian.Uint64(b[i-7:])
	si := (w3 * 0x9E3779B97F4A7C15) >> 59 // the set the last eight bytes pick
	set := &m.sets[si]
	for k := range set {
		e := &set[k]
		if e.n == 0 || (w3^e.key[3])&e.mask[3] != 0 || i+1-e.n < 8 {
			continue
		}
		if (binary.LittleEndian.Uint64(b[i-15:])^e.key[2])&e.mask[2] == 0 &&
			(binary.LittleEndian.Uint64(b[i-23:])^e.key[1])&e.mask[1] == 0 &&
			(binary.LittleEndian.Uint64(b[i-31:])^e.key[0])&e.mask[0] == 0 {
			return &e.v
		}
	}
	h := nameWindow(b, i)
	if h < 0 {
		return nil
	}
	v, ok := judgeName(b, i, h)
	if !ok {
		return nil
	}
	hand := &m.hand[si]
	e := &set[*hand]
	*hand = (*hand + 1) % nameMemoWays
	e.n, e.v = i+1-h, v
	for k := range 4 {
		e.key[k] = binary.LittleEndian.Uint64(b[i-31+8*k:])
		// The window's bytes are the last n of the 32.
		switch lo := nameWindowMax - e.n - 8*k; {
		case lo <= 0:
			e.mask[k] = ^uint64(0)
		case lo >= 8:
			e.mask[k] = 0
		default:
			e.mask[k] = ^uint64(0) << (8 * lo)
		}
	}
	return &e.v
}

// judgeName is the verdict of the name before b[i] judged in full, and
// whether it depends on the window from b[h] only: not when a rule reads
// further back (a name ending in "key" or "sig": mayEndLoud, awsLabel,
// escapedBefore; a prompt's "[…]").
func judgeName(b []byte, i, h int) (nameVerdict, bool) {
	if b[h] == ']' || endsKeyOrSig(b, h, skipBlankBack(b, i)) { // (nameWindow tests from b[8])
		return nameVerdict{}, false
	}
	if k := skipBlankBack(b, i); !mayEndLoud(b, k) {
		return nameVerdict{reject: true}, true
	}
	var v nameVerdict
	if b[i] == ':' {
		v = colonName(b, i, true, true)
	} else {
		v = assignName(b, i, true)
	}
	v.judged = true
	return v, true
}

// endsKeyOrSig reports whether the name that ends at b[j] (before the
// quotes and backslashes there) ends in "key" or "sig", '_' and '-'
// dropped as normBytes drops them.
func endsKeyOrSig(b []byte, h, j int) bool {
	for j > h && (b[j-1] == '"' || b[j-1] == '\'' || b[j-1] == '\\') {
		j--
	}
	var l [3]byte
	n := 0
	for ; j > h && n < 3; j-- {
		if c := b[j-1]; c != '_' && c != '-' {
			l[n] = lowerTab[c]
			n++
		}
	}
	return l == [3]byte{'y', 'e', 'k'} || l == [3]byte{'g', 'i', 's'}
}

// memoJudge judges the ':' or '=' b[j] from the memo's verdict of its
// name, as at would (known); not when the memo is not used there.
func (rs *rawScan) memoJudge(j int, next *int) (hit, known bool) {
	if rs.cache == nil {
		return false, false
	}
	nv := rs.cache.names.verdict(rs.b, j)
	if nv == nil {
		return false, false
	}
	if !nv.judged {
		return false, true
	}
	rs.local = min(rs.local, j)
	*next = j + 1
	if rs.b[j] == ':' {
		return rs.colonWith(j, nv), true
	}
	return rs.assignWith(j, nv), true
}
