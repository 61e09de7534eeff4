package record

import (
	"io"
	"math"

	"github.com/gorilla/websocket"
)

// DefaultProxyBuffer is the most a proxy holds of one message in one
// direction of one connection when Proxy.Buffer is zero: above the
// gateway's own 25 MiB payload limit, so every frame a gateway accepts is
// recorded.
const DefaultProxyBuffer = 64 << 20

// keepBuffer is the largest message buffer a pump keeps between messages
// whatever comes next; a larger one is kept only while messages stay large.
const keepBuffer = 4 << 20

// message is one message a pump relayed: whole when it fit the buffer,
// else only its length (it went through in pieces and was not kept).
type message struct {
	typ      int
	data     []byte // the whole message, valid until the next call; nil when streamed
	size     int64
	streamed bool
	// end finishes a streamed message at the receiver: all of it but its
	// end went through. The caller records it first, so that a reply to it
	// cannot be recorded before it.
	end io.Closer
}

// pump moves the messages of one direction of a proxied connection. A
// message of up to limit bytes is held whole, so it can be recorded; a
// longer one is forwarded as it arrives and never held whole. Reading
// stops while a message is being forwarded, so a slow receiver slows the
// sender (backpressure) instead of growing a queue.
type pump struct {
	limit int64
	buf   []byte
}

// read reads the next message from src. A message longer than the limit
// is written to dst on the way, all but its end (message.end), and only
// its size returned. An error mid-message leaves dst's message unfinished,
// so the receiver never takes a cut message for a whole one.
func (p *pump) read(src, dst *websocket.Conn) (message, error) {
	typ, rd, err := src.NextReader()
	if err != nil {
		return message{}, err
	}
	if cap(p.buf) > keepBuffer && int64(len(p.buf)) < int64(cap(p.buf))/4 {
		p.buf = nil // the last message was small: let a big buffer go
	}
	p.buf = p.buf[:0]
	eof, err := p.fill(rd)
	if err != nil {
		return message{}, err
	}
	if eof && int64(len(p.buf)) <= p.limit {
		return message{typ: typ, data: p.buf, size: int64(len(p.buf))}, nil
	}
	m := message{typ: typ, size: int64(len(p.buf)), streamed: true}
	w, err := dst.NextWriter(typ)
	if err != nil {
		return m, err
	}
	if _, err := w.Write(p.buf); err != nil {
		return m, err
	}
	if !eof {
		n, err := io.Copy(w, rd) // the writer reads into its own frame buffer
		m.size += n
		if err != nil {
			return m, err
		}
	}
	m.end = w
	return m, nil
}

// fill reads rd into p.buf until the message ends (eof) or the buffer
// holds one byte more than the limit.
func (p *pump) fill(rd io.Reader) (eof bool, err error) {
	most := p.limit + 1
	if p.limit >= math.MaxInt-1 {
		most = math.MaxInt
	}
	for int64(len(p.buf)) < most {
		if len(p.buf) == cap(p.buf) {
			p.grow(most)
		}
		n, err := rd.Read(p.buf[len(p.buf):cap(p.buf)])
		p.buf = p.buf[:len(p.buf)+n]
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// grow doubles the buffer, from 64 KiB, to at most most bytes: growing
// never makes it larger than the limit allows.
func (p *pump) grow(most int64) {
	c := int64(2 * cap(p.buf))
	if c < 64<<10 {
		c = 64 << 10
	}
	if c > most {
		c = most
	}
	nb := make([]byte, len(p.buf), c)
	copy(nb, p.buf)
	p.buf = nb
}
