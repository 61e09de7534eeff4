package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Synthesized answers. A capture recorded by one client (clawtap record, a
// CLI) holds none of the requests another client, the Control UI, makes
// as it starts; "not in capture" to two of them breaks the UI: it opens a
// session only once sessions.resolve has found it, and it retries
// chat.startup for a minute and shows an error. serve answers those two,
// when the capture holds no recorded answer, from what the capture shows,
// and says so in its log ("synthesized"). The shapes are the gateway's
// (docs/serve.md, "Synthesized answers", says where they were read).

// synthesize answers a request the capture holds no answer to, from what
// it shows; nil when it cannot. what says what it answered, for the log.
func (sv *Server) synthesize(c *client, req request) (res []byte, what string) {
	switch req.method {
	case "sessions.resolve":
		return sv.resolveSession(c, req)
	case "chat.startup":
		return sv.startupTranscript(c, req)
	}
	return nil, ""
}

// resolveSession answers sessions.resolve for a session key the capture
// shows: {ok:true, key, agentId}, as the gateway answers a session it
// found; for one it does not show, {ok:false} when the request allows a
// missing session (as the gateway answers then), else nothing.
func (sv *Server) resolveSession(c *client, req request) ([]byte, string) {
	key, ok := getStrPath(req.params, "reference", "key")
	if !ok {
		key, ok = jsonx.GetStr(req.params, "key")
	}
	if !ok || strings.TrimSpace(key) == "" {
		return nil, "" // a shortId or a label: the capture cannot tell
	}
	found, agent := c.sc.sessionShown(key)
	if found == "" {
		if allow, _ := jsonx.Get(req.params, "allowMissing"); string(allow) == "true" {
			return okRes(req.id, []byte(`{"ok":false}`)), "session " + key + " is not in the capture: not found"
		}
		return nil, ""
	}
	b := []byte(`{"ok":true,"key":`)
	b = jsonx.AppendString(b, found)
	b = append(b, `,"agentId":`...)
	b = jsonx.AppendString(b, agent)
	b = append(b, '}')
	return okRes(req.id, b), "session " + found + " of agent " + agent
}

// startupTranscript answers chat.startup {sessionKey} with the session's
// transcript as the capture shows it up to where the client is: the user
// messages the recorded clients sent (chat.send) and each run's final
// assistant message (the last chat final of the run), the last limit of
// them; none at the start of the stream. The assistant messages carry
// their run id (__openclaw.runId) when they do not already, so that the
// UI matches them with the live finals it was sent.
func (sv *Server) startupTranscript(c *client, req request) ([]byte, string) {
	key, ok := jsonx.GetStr(req.params, "sessionKey")
	if !ok || strings.TrimSpace(key) == "" {
		return nil, "" // the shortId form: the capture cannot tell
	}
	limit := 80
	if n, ok := jsonx.GetInt(req.params, "limit"); ok && n > 0 && n < 1000 {
		limit = int(n)
	}
	msgs, err := c.sc.transcript(key, c.st.Pos(), limit)
	if err != nil {
		return nil, ""
	}
	b := []byte(`{"sessionKey":`)
	b = jsonx.AppendString(b, key)
	b = append(b, `,"sessionId":`...)
	b = jsonx.AppendString(b, syntheticSessionID(key))
	b = append(b, `,"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	b = append(b, `],"thinkingLevel":null}`...)
	return okRes(req.id, b), plural(len(msgs), "message") + " of " + key
}

func plural(n int, what string) string {
	s := jsonx.AppendInt(nil, int64(n))
	if n == 1 {
		return string(s) + " " + what
	}
	return string(s) + " " + what + "s"
}

// syntheticSessionID is a session id that stays the same for a session key
// across requests, so that a UI does not take two startups for two
// sessions.
func syntheticSessionID(key string) string {
	h := sha256.Sum256([]byte("clawtap serve " + strings.ToLower(key)))
	return "clawtap-serve-" + hex.EncodeToString(h[:8])
}

// okRes is a successful response with payload to the request id.
func okRes(id, payload []byte) []byte {
	b := make([]byte, 0, 48+len(id)+len(payload))
	b = append(b, `{"type":"res","id":`...)
	b = append(b, id...)
	b = append(b, `,"ok":true,"payload":`...)
	b = append(b, payload...)
	return append(b, '}')
}

// sessionShown returns the session key as the capture shows it, and its
// agent, when the capture shows key: compared trimmed and lower-cased, as
// the Control UI compares keys, and the main alias ("main", or the hello's
// sessionDefaults.mainKey) as the hello's mainSessionKey. It waits for the
// pre-pass.
func (s *Script) sessionShown(key string) (string, string) {
	low := strings.ToLower(strings.TrimSpace(key))
	if main, alias := s.mainSession(); main != "" && (low == "main" || low == alias) {
		low = strings.ToLower(main)
	}
	var found string
	s.facts(func(x *index, _ *connFacts) { found = x.sessions[low] })
	if found == "" {
		return "", ""
	}
	agent := "main"
	if parts := strings.SplitN(found, ":", 3); len(parts) == 3 && strings.EqualFold(parts[0], "agent") && parts[1] != "" {
		agent = parts[1]
	} else if def, ok := getStrPath(s.Hello, "snapshot", "sessionDefaults", "defaultAgentId"); ok && def != "" {
		agent = def
	}
	return found, agent
}

// mainSession is the hello's sessionDefaults: the main session's key and
// its alias (mainKey), lower-cased.
func (s *Script) mainSession() (key, alias string) {
	key, _ = getStrPath(s.Hello, "snapshot", "sessionDefaults", "mainSessionKey")
	alias, _ = getStrPath(s.Hello, "snapshot", "sessionDefaults", "mainKey")
	return key, strings.ToLower(alias)
}

// transcript reads the capture up to the record at pos (-1: none) and
// returns the session's messages as JSON objects, the last limit of them
// (see startupTranscript).
func (s *Script) transcript(key string, pos, limit int) ([][]byte, error) {
	if pos < 0 || s.c == nil {
		return nil, nil
	}
	want := strings.ToLower(strings.TrimSpace(key))
	if main, alias := s.mainSession(); main != "" && (want == "main" || want == alias) {
		want = strings.ToLower(main)
	}
	same := func(v []byte, ok bool) bool {
		k, isStr := jsonx.Str(v)
		if !ok || !isStr {
			return false
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if main, alias := s.mainSession(); main != "" && (k == "main" || k == alias) {
			k = strings.ToLower(main)
		}
		return k == want
	}
	r, err := s.c.src.reader(nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var msgs [][]byte
	runAt := map[string]int{} // a run's final's place in msgs
	sent := map[string]bool{} // chat.send idempotency keys taken
	for {
		rec, err := r.Next()
		if err != nil || rec.Index > pos {
			break
		}
		if rec.Malformed || rec.Frame == nil || rec.Mark != "" {
			continue
		}
		frame := jsonx.TrimSpace(rec.Frame)
		h := readHead(frame)
		switch {
		case h.typ == frameReq && rec.Dir != capture.DirIn && strIs(h.method, "chat.send"):
			params, _ := jsonx.Get(frame, "params")
			if !same(jsonx.Get(params, "sessionKey")) {
				continue
			}
			text, ok := jsonx.GetStr(params, "message")
			if !ok {
				continue
			}
			if k, _ := jsonx.GetStr(params, "idempotencyKey"); k != "" {
				if sent[k] {
					continue
				}
				sent[k] = true
			}
			m := []byte(`{"role":"user","content":[{"type":"text","text":`)
			m = jsonx.AppendString(m, text)
			m = append(m, `}],"timestamp":`...)
			m = jsonx.AppendInt(m, rec.T)
			msgs = append(msgs, append(m, '}'))
		case h.typ == frameEvent && rec.Dir != capture.DirOut && strIs(h.event, "chat"):
			p, _ := jsonx.Get(frame, "payload")
			if st, _ := jsonx.GetStr(p, "state"); st != "final" || !same(jsonx.Get(p, "sessionKey")) {
				continue
			}
			m, ok := jsonx.Get(p, "message")
			if !ok || jsonx.KindOf(m) != jsonx.Object {
				continue
			}
			if role, ok := jsonx.GetStr(m, "role"); ok && role != "assistant" {
				continue
			}
			run, _ := jsonx.GetStr(p, "runId")
			m = withRunID(m, run)
			if at, ok := runAt[run]; ok && run != "" {
				msgs[at] = m // a run's last final is what it left
				continue
			}
			runAt[run] = len(msgs)
			msgs = append(msgs, m)
		}
	}
	if len(msgs) > limit {
		msgs = msgs[len(msgs)-limit:]
	}
	return msgs, nil
}

// withRunID returns a copy of the message with __openclaw.runId set to run
// when it has no run id of its own.
func withRunID(m []byte, run string) []byte {
	m = bytes.Clone(m)
	if run == "" {
		return m
	}
	meta, ok := jsonx.Get(m, "__openclaw")
	if ok && jsonx.KindOf(meta) == jsonx.Object {
		if _, has := jsonx.Get(meta, "runId"); has {
			return m
		}
		return setMember(m, "__openclaw", setMember(bytes.Clone(meta), "runId", jsonx.AppendString(nil, run)))
	}
	return setMember(m, "__openclaw", append(append([]byte(`{"runId":`), jsonx.AppendString(nil, run)...), '}'))
}

// getStrPath is the string at a path of keys, if it is one.
func getStrPath(obj []byte, keys ...string) (string, bool) {
	v, ok := jsonx.GetPath(obj, keys...)
	if !ok {
		return "", false
	}
	return jsonx.Str(v)
}
