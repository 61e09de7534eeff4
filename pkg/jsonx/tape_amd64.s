//go:build !purego

#include "textflag.h"

// func tapeAVX2(src *byte, blocks int, dst *uint32, st *tapeCarry) (done, toks int)
//
// Stage one (tape.go), 64 bytes a block, 32 at a time: quotes and
// backslashes by comparison, bytes below 0x20 as those equal to their
// minimum with 0x1F, operators and white space by the classes two nibble
// tables share (tapeTabs). The bytes a backslash escapes are found without
// a branch (the runs of backslashes that start on an odd bit are carried
// to their ends by an addition, which tells the runs of odd length); each
// must be one of "\/bfnrt, also found by two nibble tables. A string's
// bytes are the prefix XOR of its quotes (a carry-less multiply by all
// ones). Each token's offset is written to dst, four at a time (dst has
// room for three past the last). The code stops at a block with another
// escape (\u, or a bad one), leaving it to Go, and at a byte below 0x20
// inside a string (st.bad); it returns the blocks done and the tokens
// written. The high bits of the bytes it read are ORed into st.high, so
// a line of ASCII needs no other UTF-8 check.
//
// Locals: esc-8(SP), 1 when the block's first byte is escaped;
// seen-16(SP), a backslash was met; high-24(SP), the bytes' high bits.
TEXT ·tapeAVX2(SB), NOSPLIT, $24-48
	MOVQ src+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ dst+16(FP), DI
	MOVQ st+24(FP), BX
	MOVQ 0(BX), R8  // the block's offset in the line
	MOVQ 8(BX), R9  // all ones while a string is open
	MOVQ 16(BX), DX // 1 when the last block ended in a scalar's byte
	MOVQ 32(BX), AX
	MOVQ AX, esc-8(SP)
	MOVQ $0, seen-16(SP)
	MOVQ 48(BX), AX
	MOVQ AX, high-24(SP)
	VBROADCASTI128 ·tapeTabs+0(SB), Y8
	VBROADCASTI128 ·tapeTabs+16(SB), Y9
	VBROADCASTI128 ·tapeTabs+40(SB), Y4
	VBROADCASTI128 ·tapeTabs+56(SB), Y5
	VPBROADCASTB ·tapeTabs+32(SB), Y12
	VPBROADCASTB ·tapeTabs+33(SB), Y13
	VPBROADCASTB ·tapeTabs+34(SB), Y14
	VPBROADCASTB ·tapeTabs+35(SB), Y10
	VPBROADCASTB ·tapeTabs+36(SB), Y15
	VPBROADCASTB ·tapeTabs+37(SB), Y7
	VPXOR Y11, Y11, Y11
	VPCMPEQB Y6, Y6, Y6
	TESTQ CX, CX
	JZ tdone

tloop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	// the bytes above 0x7F, one bit each of the 32 lanes
	VPOR Y0, Y1, Y2
	VPMOVMSKB Y2, BX
	ORQ BX, high-24(SP)

	// quotes: AX
	VPCMPEQB Y12, Y0, Y2
	VPMOVMSKB Y2, AX
	VPCMPEQB Y12, Y1, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, AX

	// backslashes: R13
	VPCMPEQB Y13, Y0, Y2
	VPMOVMSKB Y2, R13
	VPCMPEQB Y13, Y1, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, R13

	MOVQ esc-8(SP), R10
	MOVQ R13, BX
	ORQ R10, BX
	JZ tplain
	ORQ R13, seen-16(SP)

	// The escaped bytes: BX; the carry out: R10.
	MOVQ R10, BX
	NOTQ BX
	ANDQ BX, R13 // a backslash escaped from before escapes nothing
	MOVQ R13, R11
	SHLQ $1, R11
	ORQ R10, R11 // the bytes after a backslash
	MOVQ $0x5555555555555555, R12
	MOVQ R12, BX
	ORQ R11, BX
	NOTQ BX
	ANDQ R13, BX // the runs that start on an odd bit
	XORL R10, R10
	ADDQ R13, BX
	ADCQ $0, R10
	SHLQ $1, BX
	XORQ R12, BX
	ANDQ R11, BX

	// Each escaped byte one of "\/bfnrt, else the block is Go's.
	VPSRLW $4, Y0, Y2
	VPAND Y10, Y2, Y2
	VPAND Y10, Y0, Y3
	VPSHUFB Y3, Y4, Y3
	VPSHUFB Y2, Y5, Y2
	VPAND Y2, Y3, Y2
	VPCMPEQB Y11, Y2, Y2
	VPMOVMSKB Y2, R11
	VPSRLW $4, Y1, Y2
	VPAND Y10, Y2, Y2
	VPAND Y10, Y1, Y3
	VPSHUFB Y3, Y4, Y3
	VPSHUFB Y2, Y5, Y2
	VPAND Y2, Y3, Y2
	VPCMPEQB Y11, Y2, Y2
	VPMOVMSKB Y2, R12
	SHLQ $32, R12
	ORQ R12, R11 // the bytes that are none of them
	TESTQ BX, R11
	JNZ tdone
	MOVQ R10, esc-8(SP)
	NOTQ BX
	ANDQ BX, AX // quotes escaped are none

tplain:
	// bytes below 0x20: R10
	VPMINUB Y14, Y0, Y2
	VPCMPEQB Y2, Y0, Y2
	VPMOVMSKB Y2, R10
	VPMINUB Y14, Y1, Y2
	VPCMPEQB Y2, Y1, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, R10

	// classes by the nibble tables, in Y0 and Y1
	VPSRLW $4, Y0, Y2
	VPAND Y10, Y2, Y2
	VPAND Y10, Y0, Y3
	VPSHUFB Y3, Y8, Y3
	VPSHUFB Y2, Y9, Y2
	VPAND Y2, Y3, Y0
	VPSRLW $4, Y1, Y2
	VPAND Y10, Y2, Y2
	VPAND Y10, Y1, Y3
	VPSHUFB Y3, Y8, Y3
	VPSHUFB Y2, Y9, Y2
	VPAND Y2, Y3, Y1

	// operators: R11
	VPAND Y15, Y0, Y2
	VPCMPEQB Y11, Y2, Y2
	VPMOVMSKB Y2, R11
	VPAND Y15, Y1, Y2
	VPCMPEQB Y11, Y2, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, R11
	NOTQ R11

	// white space: R12
	VPAND Y7, Y0, Y2
	VPCMPEQB Y11, Y2, Y2
	VPMOVMSKB Y2, R12
	VPAND Y7, Y1, Y2
	VPCMPEQB Y11, Y2, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, R12
	NOTQ R12

	// a string's bytes: R13; the carry: R9
	VMOVQ AX, X2
	VPCLMULQDQ $0x00, X6, X2, X2
	VMOVQ X2, R13
	XORQ R9, R13
	MOVQ R13, R9
	SARQ $63, R9
	TESTQ R10, R13
	JNZ tbad

	// a scalar's first bytes: R10
	MOVQ R11, BX
	ORQ R12, BX
	ORQ AX, BX
	ORQ R13, BX
	NOTQ BX
	MOVQ BX, R10
	SHLQ $1, R10
	ORQ DX, R10
	NOTQ R10
	ANDQ BX, R10
	MOVQ BX, DX
	SHRQ $63, DX

	// the tokens: operators outside strings, quotes, scalars' starts
	MOVQ R13, BX
	NOTQ BX
	ANDQ R11, BX
	ORQ AX, BX
	ORQ R10, BX
	TESTQ BX, BX
	JZ tnext

	// Four offsets a round, past the last when they run out (the room
	// is there, and the next block's offsets or the ends overwrite them).
	POPCNTQ BX, R10
	LEAQ (DI)(R10*4), R12

tflat:
	TZCNTQ BX, AX
	ADDQ R8, AX
	MOVL AX, (DI)
	BLSRQ BX, BX
	TZCNTQ BX, AX
	ADDQ R8, AX
	MOVL AX, 4(DI)
	BLSRQ BX, BX
	TZCNTQ BX, AX
	ADDQ R8, AX
	MOVL AX, 8(DI)
	BLSRQ BX, BX
	TZCNTQ BX, AX
	ADDQ R8, AX
	MOVL AX, 12(DI)
	BLSRQ BX, BX
	ADDQ $16, DI
	CMPQ DI, R12
	JB tflat
	MOVQ R12, DI

tnext:
	ADDQ $64, SI
	ADDQ $64, R8
	DECQ CX
	JNZ tloop

tdone:
	MOVQ st+24(FP), BX
	MOVQ R8, 0(BX)
	MOVQ R9, 8(BX)
	MOVQ DX, 16(BX)
	MOVQ esc-8(SP), AX
	MOVQ AX, 32(BX)
	MOVQ seen-16(SP), AX
	MOVQ AX, 40(BX)
	MOVQ high-24(SP), AX
	MOVQ AX, 48(BX)
	MOVQ blocks+8(FP), AX
	SUBQ CX, AX
	MOVQ AX, done+32(FP)
	MOVQ DI, AX
	SUBQ dst+16(FP), AX
	SHRQ $2, AX
	MOVQ AX, toks+40(FP)
	VZEROUPPER
	RET

tbad:
	MOVQ st+24(FP), BX
	MOVQ $1, 24(BX)
	JMP tdone
