package redact

import (
	"bytes"
	"encoding/binary"
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
}

const (
	textCacheN   = 8       // a few runs streaming at once, each on two streams
	textCacheMin = 128     // shorter texts are read again, cheaply
	textCacheMax = 8 << 20 // longer ones are not kept
)

var textLE = binary.LittleEndian.Uint32([]byte("text"))

// frameScan is the pre-scan of a frame with the cache: the frame's first
// "text" string is skipped as far as a remembered text covers it, and
// remembered in turn when the frame is clean.
func (c *textCache) frameScan(b []byte) (hit, credKey bool) {
	rs := rawScan{b: b, frame: true, cache: c}
	if rs.scan() {
		return true, rs.credKey
	}
	if ts, te := rs.ts, rs.te; te-ts >= textCacheMin && te-ts <= textCacheMax && !rs.credKey && !rs.header && ts+c.covered(b[ts:te]) < te {
		c.add(b[ts:te])
	}
	return false, rs.credKey
}

// textAt notes the text string whose content starts at b[ts], and returns
// where the scan goes on: past what a remembered text covers, else ts.
func (rs *rawScan) textAt(ts int) int {
	te := stringEnd(rs.b, ts)
	rs.ts, rs.te = ts, te
	if te-ts < textCacheMin {
		return ts
	}
	t := rs.b[ts:te]
	for i := range rs.cache.ents {
		e := &rs.cache.ents[i]
		if e.safe > 0 && len(t) >= e.safe && string(t[:e.safe]) == string(e.text[:e.safe]) {
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
	if safe <= 0 {
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
		for i > 0 && rawSpaceBefore(t, i) > 0 {
			i -= rawSpaceBefore(t, i)
		}
		for i > 0 && rawSpaceBefore(t, i) == 0 {
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
