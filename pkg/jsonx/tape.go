package jsonx

import "math"

// A Tape indexes one JSON value: where each of its strings and containers
// ends, in document order. The capture reader fills one while it validates
// a frame (ObjectEachEndIndexing), so the classifier's walk of the same
// bytes (an Iter after ResetTape) jumps over strings and containers instead
// of scanning them a second time.
//
// A string, key or value, has one entry: the offset just past its closing
// quote. An object or array has two: the offset just past its closing
// bracket, then the number of the first entry after its contents. Offsets
// count from the value's first byte. Numbers and literals have none.
type Tape []uint32

// maxTaped is the longest value a Tape can index.
const maxTaped uint64 = math.MaxUint32

// tapeWriter records a Tape during a validating skip. Its methods do
// nothing on a nil writer, so the validator calls them unconditionally.
type tapeWriter struct {
	tape Tape
	base int // offset of the indexed value in the data being validated
}

func (w *tapeWriter) str(end int) {
	if w != nil {
		w.tape = append(w.tape, uint32(end-w.base))
	}
}

// open reserves a container's two entries and returns where they are.
func (w *tapeWriter) open() int {
	if w == nil {
		return 0
	}
	w.tape = append(w.tape, 0, 0)
	return len(w.tape) - 2
}

func (w *tapeWriter) close(at, end int) {
	if w != nil {
		w.tape[at], w.tape[at+1] = uint32(end-w.base), uint32(len(w.tape))
	}
}

// ResetTape is Reset with a tape indexing data (nil for none). A tape that
// does not fit the bytes it meets is dropped and the walk goes on scanning,
// so a wrong tape gives wrong values at worst, never a panic.
func (it *Iter) ResetTape(data []byte, tape Tape) {
	*it = Iter{data: data, tape: tape}
}

// tapeString returns the end of the string at it.i from the tape.
func (it *Iter) tapeString() (int, bool) {
	if it.t < len(it.tape) {
		end := int(it.tape[it.t])
		if end > it.i+1 && end <= len(it.data) && it.data[end-1] == '"' {
			it.t++
			return end, true
		}
	}
	it.tape = nil
	return 0, false
}

// tapeContainer returns the end of the object or array at it.i from the
// tape, moving past the entries of its contents when skip is set, or into
// them otherwise.
func (it *Iter) tapeContainer(skip bool) (int, bool) {
	if it.t+1 < len(it.tape) {
		end, next := int(it.tape[it.t]), int(it.tape[it.t+1])
		if end > it.i+1 && end <= len(it.data) && next >= it.t+2 && next <= len(it.tape) {
			if c := it.data[end-1]; c == '}' || c == ']' {
				if skip {
					it.t = next
				} else {
					it.t += 2
				}
				return end, true
			}
		}
	}
	it.tape = nil
	return 0, false
}

// skipValue returns the end of the value at it.i: from the tape when there
// is one, by scanning otherwise.
func (it *Iter) skipValue() (int, error) {
	if it.tape != nil && it.i < len(it.data) {
		switch it.data[it.i] {
		case '"':
			if end, ok := it.tapeString(); ok {
				return end, nil
			}
		case '{', '[':
			if end, ok := it.tapeContainer(true); ok {
				return end, nil
			}
		}
	}
	return skipFast(it.data, it.i)
}

// skipKey returns the end of the key string at it.i.
func (it *Iter) skipKey() (int, error) {
	if it.tape != nil {
		if end, ok := it.tapeString(); ok {
			return end, nil
		}
	}
	return skipStringFast(it.data, it.i)
}
