package bridge

import (
	"errors"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Meta is what a classified line carries besides the event: the capture
// record it came from.
type Meta struct {
	I    int
	T    int64
	Conn int
	Dir  string
	Raw  []byte // the message text of an invalid record, if any
}

// AppendJSON appends ev as one classify line (without newline), in the
// reference's camelCase names plus clawtap's additions.
func (ev *Event) AppendJSON(dst []byte, m Meta) []byte {
	dst = append(dst, `{"i":`...)
	dst = jsonx.AppendInt(dst, int64(m.I))
	dst = append(dst, `,"t":`...)
	t0 := len(dst)
	dst = jsonx.AppendInt(dst, m.T)
	t1 := len(dst)
	dst = append(dst, `,"conn":`...)
	dst = jsonx.AppendInt(dst, int64(m.Conn))
	dst = jsonx.AppendOptStr(dst, "dir", m.Dir)
	if ev.HasSeq {
		dst = append(dst, `,"seq":`...)
		dst = jsonx.AppendInt(dst, ev.Seq)
	}
	dst = jsonx.AppendOptStr(dst, "kind", string(ev.Kind))
	dst = jsonx.AppendOptStr(dst, "event", ev.Event)
	dst = jsonx.AppendOptStr(dst, "agentId", ev.AgentID)
	if ev.HasSessionKey || ev.SessionKey != "" {
		dst = append(dst, `,"sessionKey":`...)
		dst = jsonx.AppendString(dst, ev.SessionKey)
	}
	dst = append(dst, `,"timestamp":`...)
	if ev.Timestamp == m.T { // the record's t, as a rule: its digits again
		dst = append(dst, dst[t0:t1]...)
	} else {
		dst = jsonx.AppendInt(dst, ev.Timestamp)
	}
	dst = jsonx.AppendOptStr(dst, "runId", ev.RunID)
	dst = jsonx.AppendOptStr(dst, "state", ev.State)
	dst = jsonx.AppendOptStr(dst, "stream", ev.Stream)
	dst = jsonx.AppendOptStr(dst, "phase", ev.Phase)
	dst = jsonx.AppendOptStr(dst, "method", ev.Method)
	dst = jsonx.AppendOptStr(dst, "id", ev.ID)
	if ev.OK != nil {
		if *ev.OK {
			dst = append(dst, `,"ok":true`...)
		} else {
			dst = append(dst, `,"ok":false`...)
		}
	}
	dst = jsonx.AppendOptStr(dst, "code", ev.Code)
	dst = jsonx.AppendOptStr(dst, "mark", ev.Mark)
	dst = jsonx.AppendOptStr(dst, "reason", ev.Reason)
	dst = jsonx.AppendOptStr(dst, "requestSessionKey", ev.RequestSessionKey)
	if ev.Payload != nil {
		dst = append(dst, `,"payload":`...)
		dst = append(dst, ev.Payload...)
	}
	if m.Raw != nil {
		dst = append(dst, `,"raw":`...)
		dst = jsonx.AppendString(dst, string(m.Raw))
	}
	return append(dst, '}')
}

// ErrNotClassified is returned for a line that is not a classified event.
var ErrNotClassified = errors.New(`not a classified event (needs a "kind")`)

// ParseJSON reads a classified line as AppendJSON writes it, or as a person
// writes it by hand: only "kind" is required; "event", "agentId",
// "sessionKey", "timestamp" and "payload" are used as given (agentId is not
// re-derived). Meta fields default to zero; hasT reports whether "t" was set.
func ParseJSON(line []byte) (ev Event, m Meta, hasI, hasT bool, err error) {
	line = jsonx.TrimSpace(line)
	var okRaw []byte
	end, perr := jsonx.ObjectEachEnd(line, func(k, v []byte) bool {
		switch string(k) {
		case "i":
			n, _ := jsonx.Int(v)
			m.I, hasI = int(n), jsonx.KindOf(v) == jsonx.Number
		case "t":
			m.T, hasT = jsonx.Int(v)
		case "conn":
			n, _ := jsonx.Int(v)
			m.Conn = int(n)
		case "dir":
			m.Dir, _ = jsonx.Str(v)
		case "seq":
			ev.Seq, ev.HasSeq = jsonx.Int(v)
		case "kind":
			s, _ := jsonx.Str(v)
			ev.Kind = Kind(s)
		case "event":
			ev.Event, _ = jsonx.Str(v)
		case "agentId":
			ev.AgentID, _ = jsonx.Str(v)
		case "sessionKey":
			ev.SessionKey, ev.HasSessionKey = jsonx.Str(v)
		case "requestSessionKey":
			ev.RequestSessionKey, _ = jsonx.Str(v)
		case "timestamp":
			if n, ok := jsonx.Int(v); ok {
				ev.Timestamp = n
			} else if f, ok := jsonx.Num(v); ok {
				ev.Timestamp = int64(f)
			}
		case "payload":
			ev.Payload = v
		case "runId":
			ev.RunID, _ = jsonx.Str(v)
		case "state":
			ev.State, _ = jsonx.Str(v)
		case "stream":
			ev.Stream, _ = jsonx.Str(v)
		case "phase":
			ev.Phase, _ = jsonx.Str(v)
		case "method":
			ev.Method, _ = jsonx.Str(v)
		case "id":
			ev.ID, _ = jsonx.Str(v)
		case "ok":
			okRaw = v
		case "code":
			ev.Code, _ = jsonx.Str(v)
		case "mark":
			ev.Mark, _ = jsonx.Str(v)
		case "reason":
			ev.Reason, _ = jsonx.Str(v)
		case "raw":
			if s, ok := jsonx.Str(v); ok {
				m.Raw = []byte(s)
			}
		}
		return true
	})
	if perr != nil || end != len(line) {
		return Event{}, Meta{}, false, false, jsonx.ErrSyntax
	}
	if ev.Kind == "" {
		return Event{}, Meta{}, false, false, ErrNotClassified
	}
	if jsonx.KindOf(okRaw) == jsonx.Bool {
		b := okRaw[0] == 't'
		ev.OK = &b
	}
	if !hasT {
		m.T = ev.Timestamp
	}
	return ev, m, hasI, hasT, nil
}
