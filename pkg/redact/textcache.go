package redact

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// textCache remembers the streamed texts the pre-scan found clean lately.
// A streamed frame carries the whole reply so far (agent data.text, chat
// message text), which the next frame repeats and extends, and the chat
// frame repeats the agent frame's: without the cache a long reply would
// be read again in full for every chunk, its cost growing with the square
// of its length. A text that starts with one remembered is read from near
// the remembered one's end: from the start of its last two words, since a
// rule at one of them (a name, its value) may read on into the new text.
type textCache struct {
	ents [textCacheN]struct {
		text []byte // raw, as in the frame
		safe int    // text[:safe] needs no second look
	}
	next int
	// heads are the starts of frames found clean lately, each up to its
	// first anchor that was judged from more than the bytes next to it.
	// Streamed frames of one run start alike (type, event, run id,
	// session key, …): a frame that starts as one does is read from near
	// where they part, since every anchor before was judged from the
	// six bytes after it at most, and from what is before it.
	heads [headN][]byte
	masks [scanChunk / 64]blockMasks // the scan's, kept to be reused
	conts contCache                  // credential containers found clean
	names nameMemo                   // the verdicts of names met (namememo.go)
	// quietKeys are JSON keys found quiet by their last letters
	// (keyColons), each as the six bytes before its colon, the colon and
	// the byte after: those tests read no more, so a key that ends alike
	// is as quiet. A frame holds ten keys or so, out of a small
	// vocabulary; one load and compare turns each down.
	quietKeys [quietKeysN]uint64
}

const quietKeysN = 128

// quietKeySlot is where quietKeys keeps tail.
func quietKeySlot(tail uint64) uint64 { return tail * 0x9E3779B97F4A7C15 >> 57 }

// isTextKey reports whether tail (as quietKeys keeps it) is the key
// "text": it is kept out of quietKeys, since a frame's first one starts
// the remembered text (keyColons) whatever its letters say.
func isTextKey(tail uint64) bool {
	return byte(tail) == '"' && uint32(tail>>8) == textLE && byte(tail>>40) == '"'
}

const (
	headN, headMin, headMax = 16, 64, 1024 // frames shorter than headMin are not remembered

	textCacheN   = 8       // a few runs streaming at once, each on two streams
	textCacheMin = 128     // shorter texts are read again, cheaply
	textCacheMax = 8 << 20 // longer ones are not kept
)

var textLE = binary.LittleEndian.Uint32([]byte("text"))

// frameScan is the pre-scan of a frame with the cache: the frame's first
// "text" string is skipped as far as a remembered text covers it, and
// remembered in turn when the frame is clean.
func (c *textCache) frameScan(b []byte) (hit, credKey bool) {
	rs := rawScan{b: b, frame: true, cache: c, local: len(b), masks: c.masks[:], ent: -1}
	h := -1
	if len(b) >= headMin {
		h = headSlot(b)
		if e := c.heads[h]; len(e) > 0 {
			rs.from = max(0, commonPrefix(b, e)-6)
		}
	}
	if rs.scan() {
		return true, rs.credKey
	}
	if n := min(rs.local, headMax); h >= 0 && n >= headMin {
		// The bytes it has in common with the one remembered stay.
		e := c.heads[h]
		same := 0
		if rs.from > 0 {
			same = min(rs.from+6, len(e), n)
		}
		c.heads[h] = append(e[:same], b[same:n]...)
	}
	if ts := rs.ts; ts > 0 && !rs.credKey && !rs.header {
		te := rs.te
		if te == 0 {
			te = stringEnd(b, ts) // not passed (a frame cut short)
		}
		if te-ts >= textCacheMin && te-ts <= textCacheMax {
			c.keep(b[ts:te], rs.ent)
		}
	}
	return false, rs.credKey
}

// keep remembers the text t found clean; ent is the remembered text it
// starts with, if any (-1): a streamed reply's next text extends it, and
// only what it adds is copied.
func (c *textCache) keep(t []byte, ent int) {
	if ent >= 0 {
		e := &c.ents[ent]
		switch {
		case len(t) <= len(e.text) && string(t[e.safe:]) == string(e.text[e.safe:len(t)]):
			return // covered already
		case len(t) > len(e.text) && string(t[e.safe:len(e.text)]) == string(e.text[e.safe:]):
			if safe := safeCut(t); safe > 0 {
				e.text = append(e.text, t[len(e.text):]...)
				e.safe = safe
			}
			return
		}
	}
	if c.covered(t) < len(t) {
		c.add(t)
	}
}

// headSlot is where a frame's start is remembered: by a hash of three
// words of its first 64 bytes (len(b) >= 64), where frames of one kind
// from different runs differ (the run id).
func headSlot(b []byte) int {
	x := binary.LittleEndian.Uint64(b[16:]) ^ binary.LittleEndian.Uint64(b[40:])*0x9E3779B97F4A7C15 ^ binary.LittleEndian.Uint64(b[56:])
	return int((x * 0xC2B2AE3D27D4EB4F) >> 60)
}

// commonPrefix is the length of the longest common prefix of a and e.
func commonPrefix(a, e []byte) int {
	n := min(len(a), len(e))
	a, e = a[:n], e[:n]
	i := 0
	if hasAVX2 && n >= 32 {
		// It stops at a difference, or where fewer than 32 bytes are left.
		if i = commonPrefixAVX2(&a[0], &e[0], n); i+32 <= n {
			return i
		}
		a, e = a[i:], e[i:]
	}
	for len(a) >= 8 && len(e) >= 8 {
		if x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(e); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
		a, e, i = a[8:], e[8:], i+8
	}
	for k := range a {
		if a[k] != e[k] {
			return i + k
		}
	}
	return n
}

// textAt notes the text string whose content starts at b[ts], and returns
// where the scan goes on: past what a remembered text covers, else ts.
// The string's end is not looked for: bytes equal to a remembered text's
// are the same string's content as far.
func (rs *rawScan) textAt(ts int) int {
	rs.ts = ts
	b := rs.b
	if len(b)-ts < textCacheMin {
		return ts
	}
	t8 := binary.LittleEndian.Uint64(b[ts:])
	for i := range rs.cache.ents {
		e := &rs.cache.ents[i]
		if e.safe >= 8 && len(b)-ts >= e.safe && binary.LittleEndian.Uint64(e.text) == t8 && string(b[ts:ts+e.safe]) == string(e.text[:e.safe]) {
			rs.ent = i
			return ts + e.safe
		}
	}
	return ts
}

// covered is how much of t a remembered text covers already.
func (c *textCache) covered(t []byte) int {
	for i := range c.ents {
		e := &c.ents[i]
		if e.safe > 0 && len(t) <= len(e.text) && string(t) == string(e.text[:len(t)]) {
			return len(t)
		}
	}
	return 0
}

func (c *textCache) add(t []byte) {
	safe := safeCut(t)
	if safe < 8 {
		return
	}
	e := &c.ents[c.next]
	c.next = (c.next + 1) % textCacheN
	if cap(e.text) > textCacheMax/4 && len(t) < cap(e.text)/4 {
		e.text = nil // let a huge one go
	}
	e.text = append(e.text[:0], t...)
	e.safe = safe
}

// safeCut returns the start of the second-to-last word of the raw text t
// (words end at white space: a space, a tab, or an escaped newline, tab or
// return), or 0 when there is none.
func safeCut(t []byte) int {
	i := len(t)
	for w := 0; w < 2; w++ {
		for i > 0 {
			if n := rawSpaceBefore(t, i); n > 0 {
				i -= n
				continue
			}
			break
		}
		for i > 0 {
			// Only a space, a tab or an escape's letter may end white
			// space: the other bytes are stepped over at once.
			if c := t[i-1]; c != ' ' && c != '\t' && c != 'n' && c != 't' && c != 'r' {
				i--
				continue
			}
			if rawSpaceBefore(t, i) > 0 {
				break
			}
			i--
		}
	}
	return i
}

// rawSpaceBefore returns the length of the white space that ends at t[i]
// (1 for a space or tab, 2 for \n, \t, \r), or 0.
func rawSpaceBefore(t []byte, i int) int {
	switch c := t[i-1]; {
	case c == ' ' || c == '\t':
		return 1
	case (c == 'n' || c == 't' || c == 'r') && i >= 2 && t[i-2] == '\\':
		k := i - 2
		for k > 0 && t[k-1] == '\\' {
			k--
		}
		if (i-1-k)%2 == 1 { // an odd run of backslashes: an escape
			return 2
		}
	}
	return 0
}

// stringEnd returns the index of the quote that ends the JSON string whose
// content starts at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		e := i + q
		k := e
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (e-k)%2 == 0 {
			return e
		}
		i = e + 1
	}
}
