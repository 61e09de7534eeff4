package importer

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
)

// harEntry is the part of a HAR entry the importer reads.
type harEntry struct {
	StartedDateTime string `json:"startedDateTime"`
	Request         struct {
		URL string `json:"url"`
	} `json:"request"`
	ResourceType string       `json:"_resourceType"`
	Messages     []harMessage `json:"_webSocketMessages"`
}

// harMessage is one WebSocket message in Chrome's HAR extension.
type harMessage struct {
	Type   string          `json:"type"`   // send or receive
	Time   float64         `json:"time"`   // seconds since the epoch
	Opcode int             `json:"opcode"` // 1 text, 2 binary
	Data   json.RawMessage `json:"data"`
}

// har walks {"log":{…,"entries":[…]}} byte by byte (harscan.go),
// decoding one entry at a time. What was read is written even when the HAR
// breaks off.
func (im *importer) har(src *bufio.Reader) error {
	err := im.harDoc(src)
	im.releaseEntry()
	if werr := im.writeHeld(0, true); err == nil {
		err = werr
	}
	return err
}

func (im *importer) harDoc(src *bufio.Reader) error {
	s := &harScanner{br: src}
	c, err := s.skipWS()
	if errors.Is(err, io.EOF) {
		return ErrNoFrames // nothing at all, not a cut
	}
	if err != nil {
		return fmt.Errorf("HAR: %w", err)
	}
	if c != '{' {
		return fmt.Errorf("HAR: %w", &errSyntax{fmt.Sprintf("expected '{', found %q", c)})
	}
	found := false
	err = s.members(func(key string) error {
		if key != "log" {
			return s.value(false)
		}
		found = true
		return im.harLog(s)
	})
	if err != nil {
		var se *errSyntax
		if errors.As(err, &se) {
			return fmt.Errorf("HAR: %w", err)
		}
		return err
	}
	if !found {
		return errors.New("HAR: no \"log\" object (is this a HAR file?)")
	}
	return nil
}

func (im *importer) harLog(s *harScanner) error {
	if err := s.expect('{'); err != nil {
		return fmt.Errorf("HAR log: %w", readErr(err))
	}
	return s.members(func(key string) error {
		if key != "entries" {
			return s.value(false)
		}
		if err := s.expect('['); err != nil {
			return fmt.Errorf("HAR entries: %w", readErr(err))
		}
		c, err := s.skipWS()
		if err != nil {
			return fmt.Errorf("HAR entries: %w", readErr(err))
		}
		if c == ']' {
			return nil
		}
		s.br.UnreadByte()
		for n := 0; ; n++ {
			raw, err := s.entry()
			if err != nil {
				return fmt.Errorf("HAR entry %d: %w", n, err)
			}
			// Each entry is decoded on its own: one that cannot be (a
			// field of the wrong type, nesting deeper than the decoder
			// goes, …) is skipped, and the others are imported.
			var e harEntry
			if err := json.Unmarshal(raw, &e); err != nil {
				im.warn("HAR entry %d: %v; skipped", n, err)
				im.st.Skipped++
			} else {
				im.st.Entries++
				if err := im.harEntry(n, &e); err != nil {
					return err
				}
			}
			more, err := s.next(']')
			if err != nil {
				return fmt.Errorf("HAR entries: %w", err)
			}
			if !more {
				return nil
			}
		}
	})
}

func (im *importer) harEntry(n int, e *harEntry) error {
	if len(e.Messages) == 0 {
		return nil
	}
	im.st.Connections++
	conn := im.st.Connections
	var t0 int64
	if ts, err := time.Parse(time.RFC3339Nano, e.StartedDateTime); err == nil {
		t0 = ts.UnixMilli()
	}
	first := msTime(e.Messages[0].Time)
	if t0 == 0 || first > 0 && first < t0 {
		t0 = first
	}
	if err := im.holdEntry(t0); err != nil {
		return err
	}
	defer im.releaseEntry()
	if err := im.write(&capture.Record{T: t0, Conn: conn, Mark: capture.MarkOpen, URL: e.Request.URL}); err != nil {
		return err
	}
	last := t0
	for k := range e.Messages {
		m := &e.Messages[k]
		dir, ok := dirOf(m.Type)
		if !ok {
			im.warn("HAR entry %d message %d: unknown type %q; skipped", n, k, m.Type)
			im.st.Skipped++
			continue
		}
		t := msTime(m.Time)
		if t == 0 {
			t = last
		}
		last = max(last, t)
		data, isStr := decodeString(m.Data)
		if !isStr {
			im.warn("HAR entry %d message %d: data is not a string; skipped", n, k)
			im.st.Skipped++
			continue
		}
		if m.Opcode == 2 {
			// Browsers export binary messages base64-encoded.
			if b, err := base64.StdEncoding.DecodeString(data); err == nil {
				data = string(b)
			}
		}
		if err := im.frame(t, conn, dir, []byte(data)); err != nil {
			return err
		}
	}
	return im.write(&capture.Record{T: last, Conn: conn, Mark: capture.MarkClose, Reason: "end of HAR entry"})
}

// msTime turns HAR seconds (a float) into unix ms; 0 when absent or absurd.
func msTime(sec float64) int64 {
	if sec <= 0 || math.IsNaN(sec) || sec > 1e11 {
		return 0
	}
	return int64(math.Round(sec * 1000))
}

func decodeString(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
