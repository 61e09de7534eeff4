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
	// cache, when set, holds streamed texts found clean: the frame's first
	// "text" string is read only past what a remembered one covers
	// (textcache.go).
	cache *textCache
	ts    int // where the first "text" string's content starts, when met
	te    int // the quote that ends it, once the scan has passed it (else 0)
	ent   int // the remembered text it starts with, or -1
	// from is where the scan starts (the bytes before are known clean,
	// textCache.heads); local is the first anchor judged from more than
	// the bytes next to it (at, the text's cache).
	from, local int
	// hs, he: the part of the text a remembered one covers (textAt).
	hs, he int
	// named is the ':' or '=' whose name nameMayMatch passed already (on
	// the way to at): colon and assign do not test it again.
	named int
	masks []blockMasks // reused between frames, when set
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
	b := rs.b
	next := rs.from // anchors before next are inside an escape, or known clean
	masks := rs.masks
	if masks == nil {
		// Declared here, it is zeroed only for scans that bring none
		// (frameScan brings the cache's).
		var own [8]blockMasks
		masks = own[:]
	}
	escIn := escapedAt(b, rs.from) // the next block's first byte is escaped
	for pos, last := rs.from, rs.from; pos < len(b); {
		if pos != last {
			escIn = escapedAt(b, pos) // after a jump; else carried on
		}
		// A chunk at a time: anchorMasks has a bit for each anchor (and,
		// without the vector code, for a few bytes at turns down), and
		// for each colon and quote; only those are looked at.
		end := min(len(b), pos+len(masks)*64)
		anchorMasks(b[pos:end], masks)
		var carry uint64 // a quote right before the block
		if pos > 0 && b[pos-1] == '"' {
			carry = 1
		}
		nblk := (end - pos + 63) / 64
		skipTo := end
		for w := 0; w < nblk; w++ {
			bm, base := &masks[w], pos+w*64
			keys := bm.colon & (bm.quote<<1 | carry)
			carry = bm.quote >> 63
			others := bm.any &^ keys
			// The colons after a quote first: most are the ends of JSON
			// keys that no rule reads.
			if keys != 0 {
				var hit bool
				if others, hit = rs.keyColons(keys, base, others); hit {
					return true
				}
			}
			// Escapes: only a \u one can hide what a rule reads (at); the
			// letter after another is no anchor (an escaped 'b', '\\').
			var escaped uint64
			if bs := bm.bslash; bs|escIn != 0 {
				const even = 0x5555555555555555
				// A run of backslashes alternates escape and escaped,
				// from its first unless that one is escaped: the runs
				// starting on even bits are found by carrying their
				// first bit through them.
				evenStarts := bs &^ (bs << 1) & even &^ escIn
				runsEven := ((bs + evenStarts) ^ bs) & bs
				starts := runsEven&even | bs&^runsEven&^even
				escaped = starts<<1 | escIn
				escIn = starts >> 63
				// (The masks have 'u's only where there are backslashes.)
				uNext := bm.u >> 1
				if base+64 < len(b) && b[base+64] == 'u' {
					uNext |= 1 << 63
				}
				lowB := bm.b
				if bs == 0 && b[base] == 'b' {
					lowB = 1 // escaped by the block before
				}
				others &^= bs&^(starts&uNext) | escaped&lowB
			}
			if rs.ts > 0 && rs.te == 0 {
				// The text's closing quote, from the masks at hand:
				// frameScan needs it to remember the text, and looking
				// for it apart costs a call per escaped quote.
				q := bm.quote &^ escaped
				if base < rs.ts {
					q &= ^uint64(0) << (rs.ts - base)
				}
				if q != 0 {
					rs.te = base + bits.TrailingZeros64(q)
				}
			}
			for m := others; m != 0; m &= m - 1 {
				j := base + bits.TrailingZeros64(m)
				if j < next || j >= rs.hs && j < rs.he {
					continue
				}
				// The common anchors are turned down here, by the first
				// tests at makes of them, without calling it.
				c := b[j]
				if j >= 6 && j+5 < len(b) {
					nb, p := b[j+1], b[j-1]
					named := false
					switch rawAnchors[c] {
					case anNone:
						continue
					case anColon:
						// As for a key's colon.
						named = nb != '/' && (nb != '\\' || b[j+2] == '"') && (nb != 'A' || p < '0' || p > '9')
					case anB:
						if binary.LittleEndian.Uint32(b[j+1:])|0x20202020 != earLE || b[j+5]|0x20 != 'r' {
							continue // not Bearer
						}
					case anDash:
						if nb != 'u' && (nb != '-' || !hasPrefixAt(b, j, "-----BEGIN")) && (dashQuiet[p] || p >= 'a' && p <= 'z' && dashLetterQuiet(b, j)) {
							continue
						}
					case anShape:
						if c == '.' {
							if (dotQuiet[p] || !shapePair(1, p, b[j-2])) && (j < 12 || !isKeyByte(p) || !isKeyByte(b[j-6]) || !isKeyByte(b[j-12]) || !keyRunBefore(b, j)) {
								continue
							}
						} else if shapeSecond[c][nb>>6]&(1<<(nb&63)) == 0 {
							continue
						}
					case anUnder:
						if (underQuiet[p] || p != '/' && !shapePair(2, p, b[j-2])) && !(b[j-3] == 'g' && b[j-2] == 'h') {
							continue
						}
					case anEsc:
						if nb != 'u' {
							if isEscLetter(nb) {
								next = j + 2
							}
							continue
						}
					case anEq:
						// As at a ':', the name before decides (assign).
						if nb == '=' || nb == '>' || p == '=' || p == '!' || p == '<' || p == '>' {
							continue
						}
						named = true
					}
					if named { // a ':' or '=': the name before it decides
						if letter(p) && quietName(b, j) {
							continue
						}
						switch rs.screenName(j, &next) {
						case nameQuiet:
							continue
						case nameHit:
							return true
						}
					}
				} else if rawAnchors[c] == anNone {
					continue
				}
				rs.local = min(rs.local, j)
				hit, nx := rs.at(j)
				if hit {
					return true
				}
				next = nx
			}
			if he := rs.he; he > base+64 {
				// The text goes on past this block: on from its end.
				if he >= end {
					skipTo = he
					break
				}
				w = (he-pos)/64 - 1
				carry = 0
				if b[pos+(w+1)*64-1] == '"' {
					carry = 1
				}
				escIn = escapedAt(b, pos+(w+1)*64)
			}
		}
		pos, last = skipTo, end
	}
	return false
}

// escapedAt is 1 when b[i] follows an odd run of backslashes: the letter
// of an escape.
func escapedAt(b []byte, i int) uint64 {
	n := 0
	for i-n > 0 && b[i-n-1] == '\\' {
		n++
	}
	return uint64(n & 1)
}

// The verdicts of screenName on the name before a ':' or '=' anchor.
const (
	nameQuiet = iota // no rule reads it: go on
	nameHit          // the memo knows it holds a credential
	nameJudge        // the full judgement reads it (rs.named is set)
)

// screenName judges the name before the anchor at j, a ':' or an '=', as
// far as it can without the full judgement: a name no rule reads, or a
// verdict the names' memo holds; else it marks the anchor for the full
// judgement.
func (rs *rawScan) screenName(j int, next *int) int {
	b := rs.b
	k := skipBlankBack(b, j)
	if !nameMayMatch(b, k) {
		return nameQuiet
	}
	if hit, known := rs.memoJudge(j, next); known {
		if hit {
			return nameHit
		}
		return nameQuiet
	}
	if !mayEndLoud(b, k) {
		return nameQuiet
	}
	rs.named = j
	return nameJudge
}

// keyColons judges the colons after a quote, keys, of the block at base:
// most end JSON keys that no rule reads, turned down by their last
// letters. A key's colon is never inside an escape. It returns others with
// the keys it leaves to scan.
func (rs *rawScan) keyColons(keys uint64, base int, others uint64) (uint64, bool) {
	b := rs.b
	var quiet *[quietKeysN]uint64
	if rs.cache != nil {
		quiet = &rs.cache.quietKeys
	}
	for ; keys != 0; keys &= keys - 1 {
		j := base + bits.TrailingZeros64(keys)
		if j < 6 || j+5 >= len(b) {
			others |= keys & -keys
			continue
		}
		if j >= rs.hs && j < rs.he {
			continue
		}
		// The six bytes before the colon, the colon and the byte after:
		// all that the first tests below read of a key they turn down.
		tail := binary.LittleEndian.Uint64(b[j-6 : j+2])
		if quiet != nil && quiet[quietKeySlot(tail)] == tail {
			continue // a key that ends so was found quiet before (quietKeys)
		}
		nb := b[j+1]
		// (Its last letter first: one byte to turn down most keys.)
		if b[j-2] == 't' && nb == '"' && binary.LittleEndian.Uint32(b[j-5:]) == textLE && b[j-6] == '"' && rs.cache != nil && rs.ts == 0 {
			// The first "text" string: read it past what a remembered
			// text covers (at turns a "text" key down).
			rs.local = min(rs.local, j)
			rs.hs, rs.he = j+2, rs.textAt(j+2)
			continue
		}
		// Neither a URL's "://" (nor, after a quote, a Telegram token):
		// the name before decides (colon).
		if nb != '/' && (nb != '\\' || b[j+2] == '"') {
			// (A key in JSON text, \"level\":, is read before its escape.)
			if quietName(b, j-1) || b[j-2] == '\\' && quietName(b, j-2) || quietShortKey(b, j) {
				if quiet != nil && nb != '\\' && !isTextKey(tail) {
					quiet[quietKeySlot(tail)] = tail
				}
				continue
			}
			if !nameMayMatch(b, j) {
				continue
			}
			if hit, known := rs.memoJudge(j, new(int)); known {
				if hit {
					return others, true
				}
				continue
			}
			if !mayEndLoud(b, j) {
				continue
			}
			rs.named = j // a key's name ends at its colon
		}
		rs.local = min(rs.local, j)
		if hit, _ := rs.at(j); hit {
			return others, true
		}
	}
	return others, false
}

// letter reports whether c is an ASCII letter.
func letter(c byte) bool { return lowerTab[c]-'a' < 26 }

var earLE = binary.LittleEndian.Uint32([]byte("earer"))

// keyRunBefore reports whether the twelve bytes before b[j] (j >= 12) are
// base64url: a JWT's or Discord token's first piece is that long at least
// (dotTokenAt).
func keyRunBefore(b []byte, j int) bool {
	for _, c := range b[j-12 : j] {
		if !isKeyByte(c) {
			return false
		}
	}
	return true
}

// loudWords end every name a rule reads at a ':' or '=' (credClass,
// isCredListKey, isCapKey, method, assignClass), by their last letter;
// awsLabel's "key" is judged apart.
var loudWords = func() (t [26][]string) {
	for _, w := range [...]string{
		"token", "secret", "password", "passwd", "passphrase", "pass", "apikey", "privatekey",
		"secretkey", "secretaccesskey", "credential", "credentials", "authorization", "cookie",
		"cookies", "signature", "jwt", "nonce", "recoveryscope", "pathenv", "auth", "method",
		"canvashosturl", "surfaceurl", "surfaceurls", "tokens", "secrets", "sig", "pw", "pwd",
	} {
		t[w[len(w)-1]-'a'] = append(t[w[len(w)-1]-'a'], w)
	}
	return t
}()

// mayEndLoud reports whether the name before b[k] (after the quotes or
// escapes right before k, as nameMayMatch reads it) may be one a rule
// reads. A name of plain letters that ends in none of loudWords, nor in
// "key" after "secret" (awsLabel) or "key" alone, is no such name,
// whatever the signature of its last four letters says ("description" is
// not "authorization"); one joined to more by '_', '-' or an escape is
// left to the rules.
func mayEndLoud(b []byte, k int) bool {
	for n := 0; k > 0 && (b[k-1] == '"' || b[k-1] == '\'' || b[k-1] == '\\'); n++ {
		if n == 4 {
			return true
		}
		k--
	}
	n := lettersBefore(b, k)
	i := k - n
	if n == 0 || i > 0 && (b[i-1] == '_' || b[i-1] == '-' || b[i-1] == '\\') {
		return true
	}
	// The words are compared with the name's end in place, from their
	// last letters, where most differ.
	for _, w := range loudWords[lowerTab[b[k-1]]-'a'] {
		if len(w) <= n && foldEndsWith(b[:k], w) {
			return true
		}
	}
	if n >= 3 && foldEndsWith(b[:k], "key") {
		if n == 3 {
			return true
		}
		// awsLabel: "secret" shortly before a name ending in "key".
		for m := max(0, nameBefore(b, k)-32); m+6 <= k; m++ {
			if lowerTab[b[m]] == 's' && hasFoldExact(b[m:], "secret") {
				return true
			}
		}
	}
	return false
}

// lettersBefore is the number of ASCII letters right before b[k], read
// eight at a time (the names of a config schema are long).
func lettersBefore(b []byte, k int) int {
	const l, h = 0x0101010101010101, 0x8080808080808080
	n := 0
	for k-n >= 8 {
		// As quietName, a byte at a time: high bits on the letters.
		y := binary.LittleEndian.Uint64(b[k-n-8:]) | 0x20*l
		x := y &^ h
		if other := ^((x + 0x1f*l) &^ (x + 0x05*l) &^ y) & h; other != 0 {
			return n + bits.LeadingZeros64(other)/8
		}
		n += 8
	}
	for k-n > 0 && letter(b[k-n-1]) {
		n++
	}
	return n
}

// foldEndsWith reports whether b ends with the lower-case word w, ASCII
// letters in either case (len(b) >= len(w)).
func foldEndsWith(b []byte, w string) bool {
	b = b[len(b)-len(w):]
	for x := len(w) - 1; x >= 0; x-- {
		if lowerTab[b[x]] != w[x] {
			return false
		}
	}
	return true
}

// dashLetterQuiet reports whether shapeAt finds nothing at the '-' b[j]
// after a lower-case letter, b[j+1] being neither '-' nor 'u' (no PEM
// block, no Mailchimp key): no prefix ends with the two bytes before it,
// and no "gl" starts a GitLab prefix in the eight before.
func dashLetterQuiet(b []byte, j int) bool {
	if shapePair(0, b[j-1], b[j-2]) {
		return false
	}
	for k := max(0, j-8); k < j-2; k++ {
		if b[k] == 'g' && b[k+1] == 'l' {
			return false
		}
	}
	return true
}

// quietName reports whether the four bytes before b[k] (k >= 5) are
// letters that end no name a rule looks at: nameMayMatch's first test,
// on one load.
func quietName(b []byte, k int) bool {
	y := binary.LittleEndian.Uint32(b[k-4:k]) | 0x20202020
	x := y & 0x7f7f7f7f
	h := uint16((bits.ReverseBytes32(y) * 0x9E3779B1) >> 16)
	return (x+0x1f1f1f1f)&^(x+0x05050505)&^y&0x80808080 == 0x80808080 && loudSigs[h>>6]&(1<<(h&63)) == 0 && y>>16 != 'p'|'w'<<8
}

// quietShortKey reports whether the colon b[j] ends a JSON key of two or
// three letters ("ts", "seq") that is none of the short names: at's
// first test of such keys.
func quietShortKey(b []byte, j int) bool {
	l0, l1, l2 := lowerTab[b[j-2]], lowerTab[b[j-3]], lowerTab[b[j-4]]
	if l0-'a' >= 26 || l1-'a' >= 26 {
		return false
	}
	if l2 == '"' {
		return b[j-5] != '\\' && !(l0 == 'w' && l1 == 'p')
	}
	return l2-'a' < 26 && b[j-5] == '"' && b[j-6] != '\\' &&
		!(l0 == 'y' && l1 == 'e' && l2 == 'k' || l0 == 't' && l1 == 'w' && l2 == 'j' || l0 == 'g' && l1 == 'i' && l2 == 's' || l0 == 'd' && l1 == 'w' && l2 == 'p')
}

// The first tests at makes of the bytes before and after an anchor, as
// tables: dashQuiet, dotQuiet and underQuiet hold the bytes that end no
// prefix before a '-', '.' or '_' (nor, for '-', a GitLab prefix's
// letters; for '_', the capability path's '/'), shapeSecond the second
// bytes of the prefixes that start with an upper-case letter.
var (
	dashQuiet, dotQuiet, underQuiet [256]bool
	shapeSecond                     [256][4]uint64
	// shapePairs has, for '-', '.' and '_', the two bytes before it in
	// some prefix: the byte right before, then the one before that.
	shapePairs [3][256][4]uint64
)

// shapePair reports whether some prefix has p2 and p right before the
// anchor of kind k (0 '-', 1 '.', 2 '_').
func shapePair(k int, p, p2 byte) bool { return shapePairs[k][p][p2>>6]&(1<<(p2&63)) != 0 }

// loudSigs is nameSigs with the four letters that end in one of the short
// names nameMayMatch checks by hand (key, jwt, pwd, sig; quietName tests
// pw itself).
var loudSigs = func() [1 << 16 / 64]uint64 {
	t := nameSigs
	for a := byte('a'); a <= 'z'; a++ {
		for _, w := range []string{"key", "jwt", "pwd", "sig"} {
			h := sig4([4]byte{w[2], w[1], w[0], a})
			t[h>>6] |= 1 << (h & 63)
		}
	}
	return t
}()

// initQuiet fills them from the shapes (tokens.go's init).
func initQuiet() {
	for c := range 256 {
		p := byte(c)
		dashQuiet[c] = shapePrev['-'][p>>6]&(1<<(p&63)) == 0 && !(p >= 'a' && p <= 'z')
		dotQuiet[c] = shapePrev['.'][p>>6]&(1<<(p&63)) == 0
		underQuiet[c] = shapePrev['_'][p>>6]&(1<<(p&63)) == 0 && p != '/'
	}
	for k, a := range []byte{'-', '.', '_'} {
		for _, shs := range shapesAfter[a] {
			for _, sh := range shs {
				p, p2 := sh.prefix[sh.anchor-1], sh.prefix[sh.anchor-2]
				shapePairs[k][p][p2>>6] |= 1 << (p2 & 63)
			}
		}
	}
	for c, shs := range anchorShapes {
		for _, sh := range shs {
			n := sh.prefix[1]
			shapeSecond[c][n>>6] |= 1 << (n & 63)
		}
	}
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
