//go:build !purego

package redact

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// anchorMasksAVX2 writes blocks masks to dst, one for each 64 bytes from
// src.
//
//go:noescape
func anchorMasksAVX2(src *byte, blocks int, dst *blockMasks)

// commonPrefixAVX2 is the common prefix of a[:n] and b[:n], as far as it
// is found 32 bytes at a time.
//
//go:noescape
func commonPrefixAVX2(a, b *byte, n int) int
