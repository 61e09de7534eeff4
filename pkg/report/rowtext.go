package report

// The rows' text, as the page writes it, is made at the end of the pass on
// a goroutine of its own while the builder measures the data and the page
// writes what comes before the rows: nothing else runs then, and the rows
// are the longest part of the page. The text waits in the rows' spool,
// which that goroutine alone uses until it is done.

// rowText is the rows' text being made, or made.
type rowText struct {
	done  chan struct{}
	spans []span // the text, in pieces, in the rows' spool
}

// rowTextPiece is about how much text goes to the spool at once.
const rowTextPiece = 64 << 10

// renderAhead starts making the rows' text, with the lanes and runs as
// they are now (final: the pass has ended). Rows that all stay on the
// heap (a chunk's worth: a short capture) are written as they are read
// instead.
func (rs *Rows) renderAhead() {
	if len(rs.spans) == 0 || rs.text != nil {
		return
	}
	t := &rowText{done: make(chan struct{})}
	rs.text = t
	go func() {
		defer close(t.done)
		buf := make([]byte, 0, rowTextPiece+256)
		var x Row
		k := 0
		for c := range rs.chunks {
			for b := rs.chunk(c); len(b) > 0; k++ {
				b = rs.next(b, &x)
				buf = appendRowItem(buf, &x, k)
				if len(buf) >= rowTextPiece {
					t.spans = append(t.spans, rs.sp.put(buf))
					buf = buf[:0]
				}
			}
		}
		if len(buf) > 0 {
			t.spans = append(t.spans, rs.sp.put(buf))
		}
	}()
}

// appendRowItem appends row k as an element of the rows' array: on a line
// of its own, after a comma but the first.
func appendRowItem(dst []byte, x *Row, k int) []byte {
	if k > 0 {
		dst = append(dst, ',')
	}
	return appendRow(append(dst, '\n'), x)
}

// wait waits for the rows' text, if it is being made: until then the
// rows' spool is not the caller's.
func (rs *Rows) wait() {
	if rs.text != nil {
		<-rs.text.done
	}
}

// rendered returns the rows' text made ahead, in pieces in the rows'
// spool; false when it was not made.
func (rs *Rows) rendered() ([]span, bool) {
	if rs.text == nil {
		return nil, false
	}
	rs.wait()
	return rs.text.spans, true
}
