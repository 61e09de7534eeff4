package output

import (
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/human"
)

// TextWriter is the sanitiser between a printer of text for people (text,
// table and JUnit output, goldens, diffs) and where it goes, so that no
// line printed, new ones included, lets a capture, a file name or a peer
// act on a terminal or a CI log:
//
//   - every rune human.Unsafe finds (ESC, CR, NUL, the other controls,
//     bidirectional overrides) becomes �, and so does each byte of invalid
//     UTF-8: the output is valid UTF-8; newlines and tabs stay;
//   - a line never starts, after its leading white space, with "::" (a
//     GitHub Actions workflow command, such as ::warning:: or
//     ::add-mask::): "\" is put before it. clawtap's own annotations are
//     written past the writer (cli.Sink.Direct);
//   - with colour, the style's own SGR sequences (ESC [ … m) pass; the
//     printers make what they paint printable first (human.Printable).
//
// Flush writes what a Write held back (an incomplete rune or sequence, a
// ':' at the start of a line); Write holds at most a few bytes.
type TextWriter struct {
	w      io.Writer
	colour bool

	lead  bool   // at a line's start or in its leading white space
	colon bool   // a ':' at lead, held to see what follows
	part  []byte // an incomplete rune or escape sequence, held
	out   []byte
}

// NewTextWriter sanitises what is written to w; colour lets SGR
// sequences through.
func NewTextWriter(w io.Writer, colour bool) *TextWriter {
	return &TextWriter{w: w, colour: colour, lead: true}
}

// maxSGR bounds an SGR sequence held across writes.
const maxSGR = 32

// Write sanitises p on its way. It reports len(p) when what it made of p
// was written.
func (t *TextWriter) Write(p []byte) (int, error) {
	b := p
	if len(t.part) > 0 {
		b = append(append([]byte(nil), t.part...), p...)
		t.part = t.part[:0]
	}
	out := t.out[:0]
	clean := 0 // b[clean:i] is to be copied as is
	changed := false
	i := 0
	for i < len(b) {
		if !t.lead && !t.colon {
			// Mid-line, the common case: only controls and non-ASCII
			// bytes need a look.
			i += human.PlainASCII(b[i:])
			if i == len(b) {
				break
			}
		}
		c := b[i]
		switch {
		case c >= 0x20 && c < 0x7f && c != ':' && c != ' ':
			if t.colon {
				out = append(out, b[clean:i]...)
				out, clean, changed = append(out, ':'), i, true
				t.colon = false
			}
			t.lead = false
			i++
			continue
		case c == ' ' || c == '\t':
			if t.colon {
				out = append(out, b[clean:i]...)
				out, clean, changed = append(out, ':'), i, true
				t.colon, t.lead = false, false
			}
			i++
			continue
		case c == '\n':
			if t.colon {
				out = append(out, b[clean:i]...)
				out, clean, changed = append(out, ':'), i, true
				t.colon = false
			}
			t.lead = true
			i++
			continue
		case c == ':':
			if !t.lead && !t.colon {
				i++
				continue
			}
			out = append(out, b[clean:i]...)
			if t.colon { // "::" opens the line: it says so, not does it
				out = append(out, `\::`...)
				t.colon, t.lead = false, false
			} else {
				t.colon = true // held
			}
			i++
			clean, changed = i, true
			continue
		case c >= utf8.RuneSelf && !t.colon && utf8.FullRune(b[i:]):
			if r, n := utf8.DecodeRune(b[i:]); !(r == utf8.RuneError && n == 1) && !human.Unsafe(r) {
				t.lead = t.lead && unicode.IsSpace(r) // as a CI runner trims
				i += n
				continue
			}
		}
		out = append(out, b[clean:i]...)
		changed = true
		if t.colon {
			out = append(out, ':')
			t.colon, t.lead = false, false
		}
		switch {
		case c == 0x1b && t.colour:
			n, whole := sgr(b[i:])
			if !whole {
				t.part = append(t.part, b[i:]...)
				i = len(b)
				break
			}
			if n > 0 {
				out = append(out, b[i:i+n]...) // the style's: lead unchanged
				i += n
				break
			}
			out = append(out, "\uFFFD"...)
			t.lead = false
			i++
		case c < utf8.RuneSelf:
			out = append(out, "\uFFFD"...)
			t.lead = false
			i++
		case !utf8.FullRune(b[i:]):
			t.part = append(t.part, b[i:]...)
			i = len(b)
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 || human.Unsafe(r) {
				out = append(out, "\uFFFD"...)
				t.lead = false
			} else { // after a held ':'
				out = append(out, b[i:i+n]...)
				t.lead = false
			}
			i += n
		}
		clean = i
	}
	if !changed {
		// Nothing to change: b goes as it is, uncopied.
		if _, err := t.w.Write(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if clean < len(b) {
		out = append(out, b[clean:]...)
	}
	t.out = out[:0]
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sgr reports the length of the SGR sequence (ESC [ digits and ; m) that
// b starts with, 0 when it is not one; whole is false when b ends before
// it can tell.
func sgr(b []byte) (n int, whole bool) {
	for i := 1; i < len(b) && i <= maxSGR; i++ {
		c := b[i]
		switch {
		case i == 1:
			if c != '[' {
				return 0, true
			}
		case c == 'm':
			return i + 1, true
		case c != ';' && (c < '0' || c > '9'):
			return 0, true
		}
	}
	return 0, len(b) > maxSGR
}

// Flush writes what Write held back: a ':' at a line's start as it is,
// an incomplete rune as a � a byte, an ESC that began no SGR sequence as
// � and what followed it (ASCII digits, '[' and ';') as it is.
func (t *TextWriter) Flush() error {
	var out []byte
	if t.colon {
		out = append(out, ':')
		t.colon, t.lead = false, false
	}
	if len(t.part) > 0 {
		if t.part[0] == 0x1b {
			out = append(append(out, "\uFFFD"...), t.part[1:]...)
		} else {
			for range t.part {
				out = append(out, "\uFFFD"...)
			}
		}
		t.part, t.lead = t.part[:0], false
	}
	if len(out) == 0 {
		return nil
	}
	_, err := t.w.Write(out)
	return err
}
