//go:build !amd64 || purego

package redact

var hasAVX2 = false

func anchorMasksAVX2(src *byte, blocks int, dst *blockMasks) { panic("redact: no vector code") }

func commonPrefixAVX2(a, b *byte, n int) int { panic("redact: no vector code") }
