//go:build !purego

package redact

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// anchorMasksAVX2 writes blocks masks to dst, one for each 64 bytes from
// src.
//
//go:noescape
func anchorMasksAVX2(src *byte, blocks int, dst *uint64)
