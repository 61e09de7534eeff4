package redact

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The pre-scan: does a frame (or one string of it, still JSON-escaped)
// hold anything the rules could replace? It reads the raw bytes once,
// stopping at the same anchors as the text rules (scan.go) plus the
// backslash of JSON escapes, and answers from what it finds around them:
// a credential name whose value could be a credential, a shaped token, a
// URL with user info, … It may say yes where the walk then replaces
// nothing (it cannot see through every escape), never the other way
// round: FuzzPrescan holds it to that. Almost every streamed frame holds
// none of it and is returned untouched after this one read.

var rawAnchors = func() (t [256]uint8) {
	t = textAnchors
	t['\\'] = anEsc
	return t
}()

// rawScan is one pre-scan.
type rawScan struct {
	b     []byte
	frame bool // a whole frame: method names and credential containers count
	// credKey is set when a credential name was met, whatever its value:
	// a request that carries one is walked (its response may hand one out).
	credKey   bool
	checkedTo int  // credential containers are searched up to here
	header    bool // a header name (Authorization:, Cookie:) was met
	// skipFrom, skipTo: bytes known clean (a streamed text seen before,
	// textCache), not read again.
	skipFrom, skipTo int
}

// mayHaveCredentials reports whether the frame b could hold anything the
// credential rules replace.
func mayHaveCredentials(b []byte) bool {
	hit, _ := prescan(b, true)
	return hit
}

// mayHaveText reports whether the raw (JSON-escaped) string content b could
// hold anything the text rules replace once decoded.
func mayHaveText(b []byte) bool {
	hit, _ := prescan(b, false)
	return hit
}

// mayHavePlainText is mayHaveText for text that is not JSON-escaped (a
// message that is not JSON): there a backslash is a backslash, not an
// escape, so text with one is always read by the rules.
func mayHavePlainText(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 || mayHaveText(b)
}

func prescan(b []byte, frame bool) (hit, credKey bool) {
	rs := rawScan{b: b, frame: frame}
	if rs.scan() {
		return true, rs.credKey
	}
	return false, rs.credKey
}

// scan reads the bytes, but those known clean.
func (rs *rawScan) scan() bool {
	if rs.skipTo > rs.skipFrom {
		return rs.scanRange(0, rs.skipFrom) || rs.scanRange(rs.skipTo, len(rs.b))
	}
	return rs.scanRange(0, len(rs.b))
}

func (rs *rawScan) scanRange(from, n int) bool {
	b := rs.b[:n]
	next := from // anchors before next are inside an escape
	i := from
	// Eight bytes at a time: anchorMask flags the anchors among them
	// (and upper-case letters, which at turns down), and only those are
	// looked at.
	// The masks' constants, in registers for the loop.
	const l = 0x0101010101010101
	hi := uint64(0x8080808080808080)
	a1, b1 := uint64((0x80-'-')*l), uint64((0x7F-'.')*l)
	a2, b2 := uint64((0x80-':')*l), uint64((0x7F-'=')*l)
	a3, b3 := uint64((0x80-'A')*l), uint64((0x7F-'_')*l)
	bb, sev := uint64('b'*l), uint64(0x7F*l)
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		x := w &^ hi
		z := x ^ bb
		m := ((x+a1)&^(x+b1) | (x+a2)&^(x+b2) | (x+a3)&^(x+b3) | ^((z + sev) | z)) & hi &^ w
		for m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			m &= m - 1
			if j < next {
				continue
			}
			hit, nx := rs.at(j)
			if hit {
				return true
			}
			next = nx
		}
	}
	for ; i < len(b); i++ {
		if rawAnchors[b[i]] != anNone && i >= next {
			hit, nx := rs.at(i)
			if hit {
				return true
			}
			next = nx
		}
	}
	return false
}

// anchorMask sets the high bit of each byte of w (eight bytes, little
// endian) that is '-', '.', ':' to '=', 'A' to '_' (the upper-case
// letters, '\\' and '_') or 'b': a superset of the anchors, exact byte by
// byte (no carries cross bytes; bytes from 0x80 up are never flagged).
func anchorMask(w uint64) uint64 {
	const l = 0x0101010101010101
	const h = 0x8080808080808080
	x := w &^ h
	r1 := (x + (0x80-'-')*l) &^ (x + (0x7F-'.')*l)
	r2 := (x + (0x80-':')*l) &^ (x + (0x7F-'=')*l)
	r3 := (x + (0x80-'A')*l) &^ (x + (0x7F-'_')*l)
	z := x ^ ('b' * l)
	eb := ^((z + 0x7F*l) | z)
	return (r1 | r2 | r3 | eb) & h &^ w
}

// at looks at the anchor b[i]: hit, or where the next anchor may be.
func (rs *rawScan) at(i int) (hit bool, next int) {
	b := rs.b
	n := len(b)
	switch rawAnchors[b[i]] {
	case anColon:
		// A JSON key of plain letters, "name": — most keys are not a
		// name any rule looks at, and are turned down without a call.
		if i >= 6 && b[i-1] == '"' && i+1 < n && b[i+1] != '/' && b[i+1] != '\\' {
			l := [4]byte{lowerTab[b[i-2]], lowerTab[b[i-3]], lowerTab[b[i-4]], lowerTab[b[i-5]]}
			if l[0]-'a' < 26 && l[1]-'a' < 26 && l[2]-'a' < 26 {
				switch {
				case l[3]-'a' < 26:
					if h := sig4(l); nameSigs[h>>6]&(1<<(h&63)) == 0 && !(l[0] == 'y' && l[1] == 'e' && l[2] == 'k') && !(l[0] == 't' && l[1] == 'w' && l[2] == 'j') &&
						!(l[0] == 'w' && l[1] == 'p') && !(l[0] == 'd' && l[1] == 'w' && l[2] == 'p') && !(l[0] == 'g' && l[1] == 'i' && l[2] == 's') {
						return false, i + 1
					}
				case l[3] == '"' && b[i-6] != '\\':
					// "seq", "key": three letters.
					if !(l[0] == 'y' && l[1] == 'e' && l[2] == 'k' || l[0] == 't' && l[1] == 'w' && l[2] == 'j' || l[0] == 'g' && l[1] == 'i' && l[2] == 's' || l[0] == 'd' && l[1] == 'w' && l[2] == 'p') {
						return false, i + 1
					}
				}
			} else if l[0]-'a' < 26 && l[1]-'a' < 26 && l[2] == '"' && b[i-5] != '\\' && !(l[0] == 'w' && l[1] == 'p') {
				return false, i + 1 // "ts", "id"
			}
		}
		return rs.colon(i), i + 1
	case anB:
		return i+1 < n && b[i+1]|0x20 == 'e' && rs.bearerAt(i), i + 1
	case anDash:
		if i > 0 && i+1 < n && b[i+1] != '-' && b[i+1] != 'u' {
			p := b[i-1]
			if shapePrev['-'][p>>6]&(1<<(p&63)) == 0 && !(p >= 'a' && p <= 'z') {
				return false, i + 1
			}
		}
		if hasPrefixAt(b, i, "-----BEGIN") {
			return true, 0
		}
		_, _, ok := shapeAt(b, i, true)
		return ok, i + 1
	case anShape:
		if b[i] == '.' && i > 0 {
			// JWTs and Discord tokens have 12 or more base64url bytes
			// before their first dot; the other dotted shapes their own
			// letter.
			p := b[i-1]
			if shapePrev['.'][p>>6]&(1<<(p&63)) == 0 && (i < 12 || !isKeyByte(p) || !isKeyByte(b[i-6]) || !isKeyByte(b[i-12])) {
				return false, i + 1
			}
		}
		_, _, ok := shapeAt(b, i, true)
		return ok, i + 1
	case anEsc:
		if i+5 < n && b[i+1] == 'u' {
			if c, ok := hex4(b[i+2 : i+6]); ok && escapeMatters(c) {
				return true, 0
			}
			return false, i + 6
		}
		if i+1 < n && isEscLetter(b[i+1]) {
			return false, i + 2 // an escaped quote or backslash is no anchor
		}
	case anEq:
		return rs.assign(i), i + 1
	case anUnder:
		if i > 0 && b[i-1] == '/' && hasPrefixAt(b, i-1, capPath) {
			return true, 0
		}
		_, _, ok := shapeAt(b, i, true)
		return ok, i + 1
	}
	return false, i + 1
}

func isEscLetter(c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

func hex4(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// escapeMatters reports whether a \u escape could hide part of what a rule
// reads: a letter or digit, or a byte the rules look for. Other escaped
// characters (control characters, <, >, &, non-ASCII) only end words,
// which the pre-scan allows for anyway.
func escapeMatters(c rune) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	switch c {
	case ':', '=', '_', '-', '.', '/', '\\', '"', '\'', '@', '?':
		return true
	}
	return false
}

func (rs *rawScan) bearerAt(i int) bool {
	b := rs.b
	if !wordStart(b, i, true) || !(hasPrefixAt(b, i+1, "earer") || hasPrefixAt(b, i+1, "EARER")) {
		return false
	}
	k := i + 6
	if k < len(b) && b[k] == '\\' {
		return true // an escaped tab or space
	}
	for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
		k++
	}
	if k == i+6 {
		return false
	}
	end := runFwd(b, k, isBearerByte)
	return end-k >= 8 || end > k && end < len(b) && b[end] == '\\'
}
