//go:build !amd64 || purego

package redact

var hasAVX2 = false

func anchorMasksAVX2(src *byte, blocks int, dst *uint64) { panic("redact: no vector code") }
