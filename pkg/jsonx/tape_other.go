//go:build !amd64 || purego

package jsonx

// useTape is false without vector code: classifying a byte at a time
// costs more than the byte walk it would save.
var useTape = false

func tapeVector(src []byte, dst []uint32, st *tapeCarry) (done, toks int) { return 0, 0 }
