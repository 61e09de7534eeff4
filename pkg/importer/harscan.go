package importer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// harScanner reads the structure of a HAR document byte by byte: the
// objects and arrays around the entries are walked, values the importer
// does not need are skipped without being held, and each entry is handed
// over as its raw bytes, to be decoded on its own. A nesting depth is only
// a counter here, so an entry nested deeper than encoding/json allows
// fails its own decoding (and is skipped) instead of stopping the
// document's.
type harScanner struct {
	br  *bufio.Reader
	buf []byte // the entry being read
}

// errSyntax is a HAR that is not JSON where the scanner reads it.
type errSyntax struct{ what string }

func (e *errSyntax) Error() string { return "invalid JSON: " + e.what }

// readErr passes a read error on; the end of the input inside the document
// is io.ErrUnexpectedEOF (a HAR cut off).
func readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (s *harScanner) skipWS() (byte, error) {
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

// expect reads the next non-space byte, which must be want.
func (s *harScanner) expect(want byte) error {
	c, err := s.skipWS()
	if err != nil {
		return err
	}
	if c != want {
		return &errSyntax{fmt.Sprintf("expected %q, found %q", want, c)}
	}
	return nil
}

// next reads what follows a member or an element: ',' (more: true) or the
// closer.
func (s *harScanner) next(closer byte) (more bool, err error) {
	c, err := s.skipWS()
	if err != nil {
		return false, readErr(err)
	}
	switch c {
	case ',':
		return true, nil
	case closer:
		return false, nil
	}
	return false, &errSyntax{fmt.Sprintf("expected ',' or %q, found %q", closer, c)}
}

// key reads an object key and its colon. first is the byte already read
// (the key's opening quote, or '}' for an empty object: end is then set).
func (s *harScanner) key(first byte) (k string, end bool, err error) {
	if first == '}' {
		return "", true, nil
	}
	if first != '"' {
		return "", false, &errSyntax{fmt.Sprintf("expected a key, found %q", first)}
	}
	raw := []byte{'"'}
	if raw, err = s.stringRest(raw); err != nil {
		return "", false, err
	}
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", false, &errSyntax{"a key: " + err.Error()}
	}
	if err := s.expect(':'); err != nil {
		return "", false, readErr(err)
	}
	return k, false, nil
}

// stringRest appends the rest of a string whose opening quote was read.
func (s *harScanner) stringRest(dst []byte) ([]byte, error) {
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return dst, readErr(err)
		}
		if dst != nil {
			dst = append(dst, c)
		}
		switch c {
		case '"':
			return dst, nil
		case '\\':
			e, err := s.br.ReadByte()
			if err != nil {
				return dst, readErr(err)
			}
			if dst != nil {
				dst = append(dst, e)
			}
		}
	}
}

// value reads one JSON value; with keep its bytes are appended to s.buf,
// else they are skipped. Nesting is counted, not limited.
func (s *harScanner) value(keep bool) error {
	c, err := s.skipWS()
	if err != nil {
		return readErr(err)
	}
	depth := 0
	for {
		if keep {
			s.buf = append(s.buf, c)
		}
		switch c {
		case '"':
			var dst []byte
			if keep {
				dst = s.buf
			}
			if dst, err = s.stringRest(dst); err != nil {
				return err
			}
			if keep {
				s.buf = dst
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		if depth == 0 {
			if c == '"' || c == '}' || c == ']' {
				return nil
			}
			// A number, true, false or null: up to the byte that ends it.
			for {
				b, err := s.br.Peek(1)
				if err != nil || !isScalarByte(b[0]) {
					return nil // the caller reads what comes next
				}
				s.br.ReadByte()
				if keep {
					s.buf = append(s.buf, b[0])
				}
			}
		}
		if depth < 0 {
			return &errSyntax{fmt.Sprintf("unexpected %q", c)}
		}
		if c, err = s.br.ReadByte(); err != nil {
			return readErr(err)
		}
	}
}

func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// entry reads the next array element's raw bytes into s.buf.
func (s *harScanner) entry() ([]byte, error) {
	s.buf = s.buf[:0]
	if cap(s.buf) > 64<<20 {
		s.buf = nil // let a huge entry go
	}
	err := s.value(true)
	return s.buf, err
}

// members reads an object's members after its '{', calling fn with each
// key; fn reads the value.
func (s *harScanner) members(fn func(key string) error) error {
	c, err := s.skipWS()
	if err != nil {
		return readErr(err)
	}
	for {
		k, end, err := s.key(c)
		if err != nil {
			return err
		}
		if end {
			return nil
		}
		if err := fn(k); err != nil {
			return err
		}
		more, err := s.next('}')
		if err != nil || !more {
			return err
		}
		if c, err = s.skipWS(); err != nil {
			return readErr(err)
		}
	}
}
