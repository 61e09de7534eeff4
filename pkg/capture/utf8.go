package capture

import "unicode/utf8"

// repaired returns b itself when it is valid UTF-8, else a copy in *buf
// with each byte that does not start a valid UTF-8 sequence replaced by
// U+FFFD, as a decoder reading it rune by rune sees it. The replacement
// holds no quote, backslash or newline, so a JSON line keeps its
// structure, and a JSON escape such as "\ud800" is ASCII and stays as it
// is.
func repaired(b []byte, buf *[]byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := (*buf)[:0]
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	*buf = out
	return out
}
