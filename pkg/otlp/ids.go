package otlp

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"github.com/clawtap/clawtap/pkg/capture"
)

// TraceID and SpanID are W3C trace context ids.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// IsZero reports an all-zero id, which W3C and OTLP call invalid.
func (t TraceID) IsZero() bool { return t == TraceID{} }

// IsZero reports an all-zero id.
func (s SpanID) IsZero() bool { return s == SpanID{} }

func (t TraceID) String() string { return hex.EncodeToString(t[:]) }
func (s SpanID) String() string  { return hex.EncodeToString(s[:]) }

// idVersion names the way ids are derived: a change to it (or to what
// goes into the seed) changes every id a capture exports, so it is part
// of what is hashed.
const idVersion = "clawtap-otlp/1"

// seeder derives the capture's identity: a hash of its header (its
// creation time, source, redaction and notes) and its first record (time,
// connection, direction and bytes). Two exports of
// one capture get the same seed, hence the same ids; two recordings
// differ at least in their first record's time.
type seeder struct {
	h    [sha256.Size]byte
	set  bool
	head []byte // the header's part, kept until the first record
}

func (s *seeder) header(h *capture.Header) {
	if h == nil {
		return
	}
	b := []byte(idVersion)
	for _, v := range []string{strconv.Itoa(h.Version), h.CreatedAt, h.Source.Tool, h.Source.Mode, h.Source.URL,
		h.Source.Listen, h.Source.GatewayVersion, strconv.Itoa(h.Source.Protocol), h.Source.From} {
		b = append(b, 0)
		b = append(b, v...)
	}
	if h.Redaction != nil {
		b = append(b, 0)
		b = strconv.AppendBool(b, h.Redaction.Credentials)
		b = strconv.AppendBool(b, h.Redaction.Content)
	}
	b = append(b, 0)
	s.head = append(b, h.Notes...)
}

// record seeds from the first record; later records change nothing.
func (s *seeder) record(rec *capture.Record) {
	if s.set {
		return
	}
	d := sha256.New()
	d.Write([]byte(idVersion))
	d.Write(s.head)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(rec.T))
	d.Write(n[:])
	binary.BigEndian.PutUint64(n[:], uint64(rec.Conn))
	d.Write(n[:])
	d.Write([]byte(rec.Dir))
	d.Write([]byte(rec.Mark))
	d.Write(rec.Frame)
	d.Write(rec.Raw)
	d.Sum(s.h[:0])
	s.set, s.head = true, nil
}

// finish seeds a capture without records from its header alone.
func (s *seeder) finish() {
	if !s.set {
		s.h = sha256.Sum256(append([]byte(idVersion), s.head...))
		s.set = true
	}
}

// sum hashes what names one span or trace of the capture.
func (s *seeder) sum(kind string, n int64, key string) [sha256.Size]byte {
	buf := make([]byte, 0, sha256.Size+len(kind)+10+len(key))
	buf = append(buf, s.h[:]...)
	buf = append(buf, kind...)
	buf = append(buf, 0)
	buf = binary.BigEndian.AppendUint64(buf, uint64(n))
	buf = append(buf, key...)
	return sha256.Sum256(buf)
}

func (s *seeder) span(kind string, n int64, key string) SpanID {
	h := s.sum(kind, n, key)
	var id SpanID
	copy(id[:], h[:])
	if id.IsZero() {
		id[7] = 1
	}
	return id
}

func (s *seeder) trace(kind string, n int64, key string) TraceID {
	h := s.sum("trace:"+kind, n, key)
	var id TraceID
	copy(id[:], h[:])
	if id.IsZero() {
		id[15] = 1
	}
	return id
}
