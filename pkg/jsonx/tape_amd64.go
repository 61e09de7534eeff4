//go:build !purego

package jsonx

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useTape says whether the validating walk steps by tokens (see tape.go):
// only where the vector code finds them.
var useTape = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasPOPCNT && cpu.X86.HasPCLMULQDQ

// tapeTabs are the vector code's tables: by a byte's low four bits
// (tapeTabs[0:16]) and by its high four (tapeTabs[16:32]), the classes it
// may be in; a byte is in the classes both give. Bits 0–2 are operators
// (',', ':', and the brackets), bits 3–4 white space (' ', and '\t' '\n'
// '\r'). Then the bytes the code broadcasts: '"', '\\', 0x1F, 0x0F, and
// the operator and white-space classes. Then two more tables the same way
// (tapeTabs[40:56], [56:72]) for the bytes of an escape of two: '"' and
// '/' (bit 0), '\\' (1), 'b', 'f', 'n' (2), 'r', 't' (3).
var tapeTabs = [72]byte{
	0x0: 1 << 3, 0x9: 1 << 4, 0xA: 1<<1 | 1<<4, 0xB: 1 << 2, 0xC: 1 << 0, 0xD: 1<<2 | 1<<4,
	16 + 0x0: 1 << 4, 16 + 0x2: 1<<0 | 1<<3, 16 + 0x3: 1 << 1, 16 + 0x5: 1 << 2, 16 + 0x7: 1 << 2,
	32: '"', 33: '\\', 34: 0x1F, 35: 0x0F, 36: 0x07, 37: 0x18,
	40 + 0x2: 1<<0 | 1<<2 | 1<<3, 40 + 0xF: 1 << 0, 40 + 0xC: 1 << 1, 40 + 0x6: 1 << 2, 40 + 0xE: 1 << 2, 40 + 0x4: 1 << 3,
	56 + 0x2: 1 << 0, 56 + 0x5: 1 << 1, 56 + 0x6: 1 << 2, 56 + 0x7: 1 << 3,
}

// tapeAVX2 is stage one for blocks blocks from src, up to the first with
// an escape other than one of two bytes: tokens to dst, the carries in
// and out through st.
//
//go:noescape
func tapeAVX2(src *byte, blocks int, dst *uint32, st *tapeCarry) (done, toks int)

// tapeVector is stage one by the vector code, up to a block it leaves to
// Go; see tape.build.
func tapeVector(src []byte, dst []uint32, st *tapeCarry) (done, toks int) {
	if len(src) < 64 {
		return 0, 0
	}
	_ = dst[len(src)/64*64+2] // room for the three written past the last
	return tapeAVX2(unsafe.SliceData(src), len(src)/64, unsafe.SliceData(dst), st)
}
