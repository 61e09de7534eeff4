package claw3d

import (
	"math"
	"strings"

	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/jsstr"
)

// This file holds what Claw3D's rules need beyond pkg/jsstr (JavaScript's
// whitespace, trim and Number#toString): the whitespace-collapsed text,
// ASCII case-folded search, and typed reads of raw JSON values.

// collapseSpace replaces every run of JS whitespace with one space and
// trims: the "whitespace-normalized" text Claw3D compares and fingerprints.
func collapseSpace(s string) string {
	s = jsstr.Trim(s)
	var b []byte
	for i := 0; i < len(s); {
		if n := jsstr.SpaceAt(s, i); n > 0 {
			j := jsstr.SkipSpace(s, i)
			if b == nil {
				if j-i == 1 && s[i] == ' ' {
					i = j
					continue // a single plain space stays as it is
				}
				b = append(make([]byte, 0, len(s)), s[:i]...)
			}
			b = append(b, ' ')
			i = j
			continue
		}
		if b != nil {
			b = append(b, s[i])
		}
		i++
	}
	if b == nil {
		return s
	}
	return string(b)
}

// indexFold returns the index of the first occurrence of the lower-case
// ASCII needle in s, ignoring ASCII case, or -1. It looks for the
// needle's rarest letter with IndexByte (in both cases) and checks around
// each hit, so a text without that letter costs two vectorized scans.
func indexFold(s, needle string) int {
	if needle == "" {
		return 0
	}
	k := rarestLetter(needle)
	lo := needle[k]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2 // next hit of each case at or after i; -2: not looked up
	for i := k; i < len(s); {
		if nextLo != -1 && nextLo < i {
			if nextLo = strings.IndexByte(s[i:], lo); nextLo >= 0 {
				nextLo += i
			}
		}
		if nextUp != -1 && nextUp < i {
			if nextUp = strings.IndexByte(s[i:], up); nextUp >= 0 {
				nextUp += i
			}
		}
		j := nextLo
		if j < 0 || (nextUp >= 0 && nextUp < j) {
			j = nextUp
		}
		if j < 0 {
			return -1
		}
		if start := j - k; start >= 0 && jsstr.HasPrefixFold(s[start:], needle) {
			return start
		}
		i = j + 1
	}
	return -1
}

// rarestLetter picks the needle byte least common in English text.
func rarestLetter(needle string) int {
	best, rank := 0, uint8(len(letterOrder))
	for i := 0; i < len(needle); i++ {
		if r := letterRank[needle[i]]; r < rank {
			best, rank = i, r
		}
	}
	return best
}

// letterOrder is the lower-case letters, rarest in English text first;
// letterRank a byte's place in it (len(letterOrder) for any other byte).
const letterOrder = "zqjxkvbpygfwmucldrhsnioate"

var letterRank = func() (t [256]uint8) {
	for c := range t {
		t[c] = uint8(len(letterOrder))
	}
	for i := 0; i < len(letterOrder); i++ {
		t[letterOrder[i]] = uint8(i)
	}
	return t
}()

// jsNumber is String(f).
func jsNumber(f float64) string { return string(jsstr.AppendNumber(nil, f)) }

// str decodes v when it is a JSON string.
func str(v []byte) (string, bool) {
	if jsonx.KindOf(v) != jsonx.String {
		return "", false
	}
	return jsonx.Str(v)
}

// nonEmptyStr decodes v when it is a non-empty JSON string: JavaScript's
// `typeof v === "string" && v` test.
func nonEmptyStr(v []byte) (string, bool) {
	s, ok := str(v)
	return s, ok && s != ""
}

// num reads v when it is a finite JSON number.
func num(v []byte) (float64, bool) {
	f, ok := jsonx.Num(v)
	if !ok || math.IsInf(f, 0) || f != f {
		return 0, false
	}
	return f, true
}

// isObject reports whether v is a JSON object (JavaScript's
// `v && typeof v === "object" && !Array.isArray(v)`).
func isObject(v []byte) bool { return jsonx.KindOf(v) == jsonx.Object }
