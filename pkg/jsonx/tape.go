package jsonx

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// The walk by tokens. Where the CPU has the vector instructions (AVX2, and
// the bit instructions of the same years: tape_amd64.s), a line is first
// classified 64 bytes at a time (stage one): each byte that starts a
// token gets a bit — an operator outside a string, a quote, the first byte
// of a number or a literal. The validating walk then steps from token to
// token (stage two) instead of byte by byte: a string's end is the next
// token after its start, and its contents are not looked at again.
//
// Stage one gives up (build returns false) on anything that makes the
// line invalid in a way only bytes show: a control character or a bad
// escape in a string, a string left open. The byte walk then reads the
// line and finds the error where it always has. Stage two checks the
// grammar, so the two walks agree on every line (FuzzTapeMatchesByteWalk).

// rawMasks is one block of 64 bytes, classified: a bit for each byte that
// is a quote, a backslash, one of {}[]:, (an operator), JSON white space,
// a byte below 0x20, or one above 0x7F.
type rawMasks struct{ quote, bslash, op, ws, ctrl, high uint64 }

// tape is one line's tokens: the offset of each byte that starts one, in
// order, then tapeEnds offsets of the line's end.
type tape struct {
	toks  []uint32
	esc   bool // a backslash is somewhere in the line
	ascii bool // no byte of the line is above 0x7F
}

// maxTapeTokens is the most tokens a line is walked by: they take four
// bytes each, up to four a byte of the line (a line of "[[[["); stage one
// gives a line with more to the byte walk, which needs no memory beyond
// the line.
const maxTapeTokens = 1 << 20

// tapeEnds is how many times the line's end closes the tokens: stage two
// reads at most two tokens past one it has found inside the line.
const tapeEnds = 4

var tapePool = sync.Pool{New: func() any { return new([]uint32) }}

// spaces pads the last block of a line.
var spaces = [64]byte([]byte(strings.Repeat(" ", 64)))

// carries is what one block leaves to the next.
type carries struct {
	str   uint64 // all ones while a string is open
	esc   uint64 // 1 when the block ended in a backslash that escapes
	other uint64 // 1 when the block ended in a scalar's byte
}

// tapeCarry is what the vector code takes and leaves: the block's offset
// and the carries, whether it met a control byte inside a string,
// whether it met a backslash, and the high bits of the bytes it read (not
// zero when one is above 0x7F).
type tapeCarry struct{ base, str, other, bad, esc, seen, high uint64 }

// tapeRun is how many blocks stage one does between checks of the room
// left for tokens (a block has at most 64).
const tapeRun = 64

// build finds data's tokens; it reports false when the byte walk must
// read data instead. t.toks is reused, grown as needed.
func (t *tape) build(data []byte) bool {
	t.esc = false
	var high uint64
	toks := t.toks[:cap(t.toks)]
	n := 0
	var c carries
	full := len(data) / 64
	var pad [64]byte
	for b := 0; b*64 < len(data); {
		src := data[b*64:]
		if b == full { // the last bytes, padded with spaces
			pad = spaces
			copy(pad[:], src)
			src = pad[:]
		}
		src = src[:min(len(src), tapeRun*64)]
		if n > maxTapeTokens {
			return false
		}
		if room := len(src) + tapeEnds; len(toks)-n < room {
			toks = slices.Grow(toks[:n], room)
			toks = toks[:cap(toks)]
		}
		if useTape {
			st := tapeCarry{base: uint64(b * 64), str: c.str, other: c.other, esc: c.esc}
			done, m := tapeVector(src, toks[n:], &st)
			if st.bad != 0 {
				return false
			}
			n += m
			b += done
			c.str, c.other, c.esc = st.str, st.other, st.esc
			t.esc = t.esc || st.seen != 0
			high |= st.high
			if done == len(src)/64 {
				continue
			}
			src = src[done*64:]
		}
		// Without vector code, or a block with a \u escape (or a bad one),
		// which the vector code leaves: in Go, a byte at a time.
		raw := classifyGo(src[:64])
		high |= raw.high
		s, ok := t.block(&raw, b, data, &c)
		if !ok {
			return false
		}
		for base := uint32(b * 64); s != 0; s &= s - 1 {
			toks[n] = base + uint32(bits.TrailingZeros64(s))
			n++
		}
		b++
	}
	if len(toks)-n < tapeEnds { // no room asked for: an empty line
		toks = slices.Grow(toks[:n], tapeEnds)
		toks = toks[:cap(toks)]
	}
	for range tapeEnds {
		toks[n] = uint32(len(data))
		n++
	}
	t.toks = toks[:n]
	t.ascii = high == 0
	return c.str == 0
}

// block returns the tokens of block b, given its masks.
func (t *tape) block(r *rawMasks, b int, data []byte, c *carries) (uint64, bool) {
	q := r.quote
	if r.bslash|c.esc != 0 {
		t.esc = t.esc || r.bslash != 0
		escaped, ok := escapes(r.bslash, b*64, data, &c.esc)
		if !ok {
			return 0, false
		}
		q &^= escaped
	}
	in := prefixXor(q) ^ c.str // a string's bytes, its opening quote included
	c.str = uint64(int64(in) >> 63)
	if r.ctrl&in != 0 {
		return 0, false
	}
	other := ^(r.op | r.ws | q | in)
	starts := other &^ (other<<1 | c.other)
	c.other = other >> 63
	return r.op&^in | q | starts, true
}

// escapes returns the bytes of the block at base that a backslash
// escapes, checking each escape as the byte walk does; *carry says the
// block's first byte is escaped, and is set for the next block.
func escapes(bs uint64, base int, data []byte, carry *uint64) (uint64, bool) {
	var escaped uint64
	if *carry != 0 {
		// The escape began in the block before; checked here again, as
		// the vector code checks an escape where its second byte is.
		if escapeLen(data, base-1) == 0 {
			return 0, false
		}
		escaped, bs, *carry = 1, bs&^1, 0
	}
	for bs != 0 {
		i := bits.TrailingZeros64(bs)
		if escapeLen(data, base+i) == 0 {
			return 0, false
		}
		if i == 63 {
			*carry = 1
			break
		}
		escaped |= 1 << (i + 1)
		bs &^= 1<<(i+2) - 1 // the escaped byte, even a backslash, starts nothing
	}
	return escaped, true
}

// prefixXor sets each bit to the parity of the bits at and below it.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// classifyGo is the vector code's masks of one block of 64 bytes, a byte
// at a time: stage one where there is no vector code, and the reference
// in tests.
func classifyGo(block []byte) rawMasks {
	var r rawMasks
	for i, c := range block[:64] {
		bit := uint64(1) << i
		switch c {
		case '"':
			r.quote |= bit
		case '\\':
			r.bslash |= bit
		case '{', '}', '[', ']', ':', ',':
			r.op |= bit
		case ' ', '\t', '\n', '\r':
			r.ws |= bit
		}
		if c < 0x20 {
			r.ctrl |= bit
		}
		if c >= 0x80 {
			r.high |= bit
		}
	}
	return r
}
