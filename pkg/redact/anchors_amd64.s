//go:build !purego

#include "textflag.h"

// func anchorMasksAVX2(src *byte, blocks int, dst *uint64)
//
// Each byte is split into its two nibbles, each looked up in its table
// (VPSHUFB); the byte is an anchor when the two results share a bit.
TEXT ·anchorMasksAVX2(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ dst+16(FP), DI
	VBROADCASTI128 ·anchorTabs+0(SB), Y8
	VBROADCASTI128 ·anchorTabs+16(SB), Y9
	VBROADCASTI128 ·anchorTabs+32(SB), Y10
	VPXOR Y11, Y11, Y11
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
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
	ADDQ $8, DI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET
