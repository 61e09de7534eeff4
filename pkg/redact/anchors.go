package redact

import "encoding/binary"

// The anchors of a chunk of bytes as bit masks, one bit a byte, 64 bytes a
// mask: with AVX2, two table look-ups a byte, 32 bytes at a time
// (anchors_amd64.s); else eight bytes at a time with integer arithmetic,
// which flags a few bytes more (upper-case letters, ';', '<', '[', ']',
// '^'), turned down by scan.

// scanChunk is how many bytes one call to anchorMasks covers.
const scanChunk = 4096

// anchorTabs holds the vector code's tables: a bit for each group of
// anchors by the low four bits of a byte (anchorTabs[0:16]) and by the
// high four (anchorTabs[16:32]); a byte is an anchor when they share one.
// anchorTabs[32:48] is the low-nibble mask, then ':', '"', '\\', 'u' and
// 'b' sixteen times each.
var anchorTabs = func() (t [128]byte) {
	var groups [][16]bool // the low nibbles of a group of high nibbles
	for hi := range 16 {
		var lows [16]bool
		any := false
		for lo := range 16 {
			if rawAnchors[hi<<4|lo] != anNone {
				lows[lo], any = true, true
			}
		}
		if !any {
			continue
		}
		g := -1
		for k := range groups {
			if groups[k] == lows {
				g = k
			}
		}
		if g < 0 {
			g = len(groups)
			groups = append(groups, lows)
			if g >= 8 {
				panic("redact: the anchors need more than eight groups")
			}
		}
		t[16+hi] |= 1 << g
		for lo := range 16 {
			if lows[lo] {
				t[lo] |= 1 << g
			}
		}
	}
	for k := 0; k < 16; k++ {
		t[32+k], t[48+k], t[64+k], t[80+k], t[96+k], t[112+k] = 0x0F, ':', '"', '\\', 'u', 'b'
	}
	return t
}()

// blockMasks are the anchors, colons, quotes, backslashes, 'u's and 'b's
// of 64 bytes, a bit a byte; the 'u's and 'b's may be left out of a block
// without a backslash.
type blockMasks struct{ any, colon, quote, bslash, u, b uint64 }

// anchorMasks fills masks for b (len(b) <= 64*len(masks)).
func anchorMasks(b []byte, masks []blockMasks) {
	full := len(b) / 64
	if !hasAVX2 {
		anchorMasksGo(b, masks)
		return
	}
	if full > 0 {
		anchorMasksAVX2(&b[0], full, &masks[0])
	}
	if rest := b[full*64:]; len(rest) > 0 {
		var tail [64]byte // zeros are none of them
		copy(tail[:], rest)
		anchorMasksAVX2(&tail[0], 1, &masks[full])
	}
}

// anchorMasksGo is anchorMasks in integer arithmetic, eight bytes at a
// time.
func anchorMasksGo(b []byte, masks []blockMasks) {
	const l, h = 0x0101010101010101, 0x8080808080808080
	// gather moves the flags (each byte's high bit) to the low eight
	// bits, by one multiplication none of whose terms collide.
	gather := func(f uint64) uint64 { return (f >> 7 * 0x0102040810204080) >> 56 }
	eq := func(w, c uint64) uint64 {
		z := w ^ c
		return ^((z&^h + 0x7F*l) | z) & h
	}
	for w := 0; w*64 < len(b); w++ {
		blk := b[w*64 : min(len(b), w*64+64)]
		var m blockMasks
		k := 0
		for ; k+8 <= len(blk); k += 8 {
			x := binary.LittleEndian.Uint64(blk[k:])
			m.any |= gather(anchorMask(x)) << k
			m.colon |= gather(eq(x, ':'*l)) << k
			m.quote |= gather(eq(x, '"'*l)) << k
			m.bslash |= gather(eq(x, '\\'*l)) << k
			m.u |= gather(eq(x, 'u'*l)) << k
			m.b |= gather(eq(x, 'b'*l)) << k
		}
		for ; k < len(blk); k++ {
			c := blk[k]
			if rawAnchors[c] != anNone {
				m.any |= 1 << k
			}
			for _, f := range [...]struct {
				c    byte
				mask *uint64
			}{{':', &m.colon}, {'"', &m.quote}, {'\\', &m.bslash}, {'u', &m.u}, {'b', &m.b}} {
				if c == f.c {
					*f.mask |= 1 << k
				}
			}
		}
		masks[w] = m
	}
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
