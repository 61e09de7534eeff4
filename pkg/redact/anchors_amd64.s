//go:build !purego

#include "textflag.h"

// func anchorMasksAVX2(src *byte, blocks int, dst *blockMasks)
//
// Each byte is split into its two nibbles, each looked up in its table
// (VPSHUFB); the byte is an anchor when the two results share a bit.
// Colons, quotes, backslashes, 'u's and 'b's are compared for.
TEXT ·anchorMasksAVX2(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ dst+16(FP), DI
	VBROADCASTI128 ·anchorTabs+0(SB), Y8
	VBROADCASTI128 ·anchorTabs+16(SB), Y9
	VBROADCASTI128 ·anchorTabs+32(SB), Y10
	VBROADCASTI128 ·anchorTabs+48(SB), Y12
	VBROADCASTI128 ·anchorTabs+64(SB), Y13
	VBROADCASTI128 ·anchorTabs+80(SB), Y14
	VBROADCASTI128 ·anchorTabs+96(SB), Y15
	VPXOR Y11, Y11, Y11
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPCMPEQB Y12, Y0, Y4
	VPCMPEQB Y12, Y1, Y5
	VPCMPEQB Y13, Y0, Y6
	VPCMPEQB Y13, Y1, Y7
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 8(DI)
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 16(DI)
	VPCMPEQB Y14, Y0, Y4
	VPCMPEQB Y14, Y1, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 24(DI)
	MOVQ $0, 32(DI)
	MOVQ $0, 40(DI)
	TESTQ AX, AX
	JZ noescape

	// Only where there are backslashes: the 'u's and 'b's.
	VPCMPEQB Y15, Y0, Y6
	VPCMPEQB Y15, Y1, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 32(DI)
	VPBROADCASTB ·anchorTabs+112(SB), Y4
	VPCMPEQB Y4, Y0, Y5
	VPCMPEQB Y4, Y1, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 40(DI)

noescape:
	VPSRLW $4, Y0, Y2
	VPSRLW $4, Y1, Y3
	VPAND Y10, Y0, Y0
	VPAND Y10, Y1, Y1
	VPAND Y10, Y2, Y2
	VPAND Y10, Y3, Y3
	VPSHUFB Y0, Y8, Y0
	VPSHUFB Y1, Y8, Y1
	VPSHUFB Y2, Y9, Y2
	VPSHUFB Y3, Y9, Y3
	VPAND Y2, Y0, Y0
	VPAND Y3, Y1, Y1
	VPCMPEQB Y11, Y0, Y0
	VPCMPEQB Y11, Y1, Y1
	VPMOVMSKB Y0, AX
	VPMOVMSKB Y1, BX
	SHLQ $32, BX
	ORQ BX, AX
	NOTQ AX
	MOVQ AX, (DI)
	ADDQ $64, SI
	ADDQ $48, DI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET

// func commonPrefixAVX2(a, b *byte, n int) int
//
// The length of the common prefix of a[:n] and b[:n], 32 bytes at a time
// while n allows (the rest is left to the caller: the result is then a
// multiple of 32 at most n).
TEXT ·commonPrefixAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	XORQ AX, AX

cploop:
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JGT cpdone
	VMOVDQU (SI)(AX*1), Y0
	VPCMPEQB (DI)(AX*1), Y0, Y0
	VPMOVMSKB Y0, BX
	NOTL BX
	TESTL BX, BX
	JNZ cpdiff
	MOVQ DX, AX
	JMP cploop

cpdiff:
	BSFL BX, BX
	ADDQ BX, AX

cpdone:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
