package jsonx

// Iter walks one object member by member without callbacks, so a caller can
// descend into the values it cares about and skip the rest: every byte is
// read once. It does not validate (see ObjectEach); use it on input that is
// already known to be valid JSON. It never panics; on malformed input Err
// is set and the walk stops.
type Iter struct {
	data []byte
	i    int
	err  error
	open bool // just entered an object: no comma before its first member
}

// NewIter starts a walk over data.
func NewIter(data []byte) *Iter { return &Iter{data: data} }

// Reset reuses the Iter for new data.
func (it *Iter) Reset(data []byte) { *it = Iter{data: data} }

// Err reports the first syntax error met.
func (it *Iter) Err() error { return it.err }

// Pos is the offset of the next byte to read.
func (it *Iter) Pos() int { return it.i }

func (it *Iter) fail() bool {
	if it.err == nil {
		it.err = ErrSyntax
	}
	return false
}

// Peek returns the first byte of the next value (after whitespace), or 0.
func (it *Iter) Peek() byte {
	it.i = skipSpace(it.data, it.i)
	if it.err != nil || it.i >= len(it.data) {
		return 0
	}
	return it.data[it.i]
}

// Object enters an object value; it reports false (and sets Err) if the
// next value is not an object.
func (it *Iter) Object() bool {
	if it.Peek() != '{' {
		return it.fail()
	}
	it.i++
	it.open = true
	return true
}

// nextMember moves to the next member of the object being walked: past
// the comma before it (none before the first), or past the closing brace,
// when it reports false.
func (it *Iter) nextMember() bool {
	it.i = skipSpace(it.data, it.i)
	if it.i >= len(it.data) {
		return it.fail()
	}
	if it.data[it.i] == '}' {
		it.i++
		it.open = false // back in the enclosing object, past its first member
		return false
	}
	if !it.open {
		if it.data[it.i] != ',' {
			return it.fail()
		}
		it.i = skipSpace(it.data, it.i+1)
		if it.i >= len(it.data) {
			return it.fail()
		}
	}
	it.open = false
	return true
}

// Key returns the raw key of the next member of the object being walked,
// leaving the iterator at its value, or ok=false after the closing brace.
func (it *Iter) Key() (key []byte, ok bool) {
	if it.err != nil {
		return nil, false
	}
	if !it.nextMember() {
		return nil, false
	}
	if it.data[it.i] != '"' {
		return nil, it.fail()
	}
	end, err := skipStringFast(it.data, it.i)
	if err != nil {
		return nil, it.fail()
	}
	key = it.data[it.i+1 : end-1]
	it.i = skipSpace(it.data, end)
	if it.i >= len(it.data) || it.data[it.i] != ':' {
		return nil, it.fail()
	}
	it.i++
	return key, true
}

// Skip passes over the next value and returns its raw bytes.
func (it *Iter) Skip() []byte {
	if it.err != nil {
		return nil
	}
	it.i = skipSpace(it.data, it.i)
	start := it.i
	end, err := skipFast(it.data, it.i)
	if err != nil {
		it.fail()
		return nil
	}
	it.i = end
	return it.data[start:end]
}

// Since returns the raw bytes from start to the current position (after a
// value walked member by member, its whole text).
func (it *Iter) Since(start int) []byte {
	if start > it.i || start < 0 {
		return nil
	}
	return it.data[start:it.i]
}
