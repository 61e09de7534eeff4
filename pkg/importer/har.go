package importer

import (
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

// har walks {"log":{…,"entries":[…]}} token by token, decoding one entry
// at a time. What was read is written even when the HAR breaks off.
func (im *importer) har(src io.Reader) error {
	err := im.harDoc(src)
	im.releaseEntry()
	if werr := im.writeHeld(0, true); err == nil {
		err = werr
	}
	return err
}

func (im *importer) harDoc(src io.Reader) error {
	dec := json.NewDecoder(src)
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrNoFrames // nothing at all, not a cut
		}
		return fmt.Errorf("HAR: %w", err)
	}
	found := false
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return fmt.Errorf("HAR: %w", err)
		}
		if key != "log" {
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("HAR: %w", err)
			}
			continue
		}
		found = true
		if err := im.harLog(dec); err != nil {
			return err
		}
	}
	if !found {
		return errors.New("HAR: no \"log\" object (is this a HAR file?)")
	}
	if _, err := dec.Token(); err != nil { // }, which More does not tell from the end of the input
		return fmt.Errorf("HAR: %w", err)
	}
	return nil
}

func (im *importer) harLog(dec *json.Decoder) error {
	if err := expectDelim(dec, '{'); err != nil {
		return fmt.Errorf("HAR log: %w", err)
	}
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return fmt.Errorf("HAR log: %w", err)
		}
		if key != "entries" {
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("HAR log: %w", err)
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return fmt.Errorf("HAR entries: %w", err)
		}
		for n := 0; dec.More(); n++ {
			var e harEntry
			if err := dec.Decode(&e); err != nil {
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					// A wrongly typed field: the decoder has consumed the
					// entry; skip it and go on.
					im.warn("HAR entry %d: %v; skipped", n, err)
					im.st.Skipped++
					continue
				}
				return fmt.Errorf("HAR entry %d: %w", n, err)
			}
			im.st.Entries++
			if err := im.harEntry(n, &e); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ]
			return fmt.Errorf("HAR entries: %w", err)
		}
	}
	_, err := dec.Token() // }
	return err
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

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("expected %q, found %v", d, tok)
	}
	return nil
}

func objectKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("expected a key, found %v", tok)
	}
	return k, nil
}

// skipValue passes over one value token by token, holding nothing.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
