package serve

import (
	"crypto/subtle"
	"fmt"
	"io"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// Handshake constants of the real gateway.
const (
	// MaxPreauthPayload bounds a client's frames before hello-ok.
	MaxPreauthPayload = 64 << 10
	// MaxPayload bounds a client's frames after hello-ok (policy.maxPayload).
	MaxPayload = 25 << 20

	closeProtocolError = 1002 // protocol mismatch
	closePolicy        = 1008 // auth failure, invalid handshake, invalid frame
)

// Messages the real gateway uses. Clients branch on error.code and
// error.details.code; the message text is kept close to the gateway's so a
// UI shows what it would show against a real one.
const (
	msgFirstMustBeConnect = "invalid handshake: first request must be connect"
	msgProtocolMismatch   = "protocol mismatch"
	msgTokenMismatch      = "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)"
	msgTokenMissing       = "unauthorized: gateway token missing (this clawtap serve was started with --token)"
	msgNotInCapture       = "not in capture"
)

// request is a client frame read as a request.
type request struct {
	typ    string
	id     []byte // raw JSON id
	method string
	params []byte
}

// parseRequest reads a client frame. ok is false when msg is not a JSON
// object; a request frame has typ "req", an id and a method.
func parseRequest(msg []byte) (r request, ok bool) {
	msg = jsonx.TrimSpace(msg)
	if jsonx.KindOf(msg) != jsonx.Object {
		return r, false
	}
	end, err := jsonx.ObjectEachEnd(msg, func(k, v []byte) bool {
		switch {
		case jsonx.KeyIs(k, "type"):
			r.typ, _ = jsonx.Str(v)
		case jsonx.KeyIs(k, "id"):
			if jsonx.KindOf(v) == jsonx.String || jsonx.KindOf(v) == jsonx.Number {
				r.id = v
			} else {
				r.id = nil
			}
		case jsonx.KeyIs(k, "method"):
			r.method, _ = jsonx.Str(v)
		case jsonx.KeyIs(k, "params"):
			r.params = v
		}
		return true
	})
	if err != nil || end != len(msg) {
		return request{}, false
	}
	return r, true
}

func (r request) valid() bool { return r.typ == "req" && r.id != nil && r.method != "" }

// errorRes builds {type:"res", id, ok:false, error:{code, message, details?}}.
func errorRes(id []byte, code, message string, details []byte) []byte {
	b := make([]byte, 0, 128+len(message)+len(details))
	b = append(b, `{"type":"res","id":`...)
	b = append(b, id...)
	b = append(b, `,"ok":false,"error":{"code":`...)
	b = jsonx.AppendString(b, code)
	b = append(b, `,"message":`...)
	b = jsonx.AppendString(b, message)
	if details != nil {
		b = append(b, `,"details":`...)
		b = append(b, details...)
	}
	return append(b, `}}`...)
}

func notInCapture(id []byte) []byte { return errorRes(id, "UNAVAILABLE", msgNotInCapture, nil) }

// challengeFrame is the pre-auth connect.challenge event: no seq.
func challengeFrame(nonce string, ts int64, caps []byte) []byte {
	b := make([]byte, 0, 160)
	b = append(b, `{"type":"event","event":"connect.challenge","payload":{"nonce":`...)
	b = jsonx.AppendString(b, nonce)
	b = append(b, `,"ts":`...)
	b = jsonx.AppendInt(b, ts)
	if caps != nil {
		b = append(b, `,"capabilities":`...)
		b = append(b, caps...)
	}
	return append(b, `}}`...)
}

// rejection is a failed handshake: the res to send (nil when the client's
// frame had no id) and the close code and reason.
type rejection struct {
	res    []byte
	code   int
	reason string
	why    string // for the log
}

// negotiate picks the protocol for a client's [min, max] range. With a
// recorded protocol p it is p or a mismatch, like the real gateway; with
// none recorded, the highest of 4 and 3 the client accepts.
func negotiate(recorded int, min, max int64) (int, bool) {
	if recorded > 0 {
		p := int64(recorded)
		return recorded, max >= p && min <= p
	}
	for p := int64(4); p >= 3; p-- {
		if min <= p && max >= p {
			return int(p), true
		}
	}
	return 4, false
}

// checkConnect validates the client's first frame as the gateway does and
// returns the negotiated protocol, or why the client is turned away.
func (sv *Server) checkConnect(msg []byte, text bool) (request, int, *rejection) {
	req, ok := parseRequest(msg)
	if !text || !ok || !req.valid() || req.method != "connect" {
		rej := &rejection{code: closePolicy, reason: msgFirstMustBeConnect, why: "first frame is not a connect request"}
		if ok && req.id != nil {
			rej.res = errorRes(req.id, "INVALID_REQUEST", msgFirstMustBeConnect, nil)
			if req.method != "" {
				rej.why = fmt.Sprintf("first request is %q, not connect", req.method)
			}
		}
		return req, 0, rej
	}
	min, okMin := jsonx.GetInt(req.params, "minProtocol")
	max, okMax := jsonx.GetInt(req.params, "maxProtocol")
	if !okMin || !okMax {
		m := "invalid connect params: minProtocol and maxProtocol are required"
		return req, 0, &rejection{res: errorRes(req.id, "INVALID_REQUEST", m, nil), code: closePolicy, reason: m, why: "connect without minProtocol/maxProtocol"}
	}
	proto, ok := negotiate(sv.script.Protocol, min, max)
	if !ok {
		d := []byte(`{"code":"PROTOCOL_MISMATCH","expectedProtocol":`)
		d = jsonx.AppendInt(d, int64(proto))
		d = append(d, `,"clientMinProtocol":`...)
		d = jsonx.AppendInt(d, min)
		d = append(d, `,"clientMaxProtocol":`...)
		d = jsonx.AppendInt(d, max)
		d = append(d, '}')
		return req, 0, &rejection{
			res:  errorRes(req.id, "INVALID_REQUEST", msgProtocolMismatch, d),
			code: closeProtocolError, reason: msgProtocolMismatch,
			why: fmt.Sprintf("protocol mismatch: client speaks %d..%d, capture has %d", min, max, proto),
		}
	}
	if sv.opts.Token != "" {
		got, _ := jsonx.Str(getPath(req.params, "auth", "token"))
		if subtle.ConstantTimeCompare([]byte(got), []byte(sv.opts.Token)) != 1 {
			d := []byte(`{"code":"AUTH_TOKEN_MISMATCH","authReason":"token_mismatch","canRetryWithDeviceToken":false}`)
			msg, why := msgTokenMismatch, "wrong token"
			if got == "" {
				d = []byte(`{"code":"AUTH_TOKEN_MISSING","authReason":"token_missing","canRetryWithDeviceToken":false}`)
				msg, why = msgTokenMissing, "no token"
			}
			return req, 0, &rejection{
				res:  errorRes(req.id, "INVALID_REQUEST", msg, d),
				code: closePolicy, reason: msg, why: why,
			}
		}
	}
	return req, proto, nil
}

func getPath(obj []byte, keys ...string) []byte {
	v, _ := jsonx.GetPath(obj, keys...)
	return v
}

// helloFrame builds the hello-ok response for a client: the recorded
// hello-ok payload with a fresh server.connId and without the device
// tokens (they were redacted in the capture, and a client would persist
// them), or, when the capture has none, a minimal valid one.
func (sv *Server) helloFrame(sc *Script, id []byte, proto int, connID string, params []byte) []byte {
	var p []byte
	if sc.Hello != nil {
		p = sc.Hello
		srv, ok := jsonx.Get(p, "server")
		if !ok || jsonx.KindOf(srv) != jsonx.Object {
			srv = []byte(`{}`)
		}
		srv = setMember(srv, "connId", jsonx.AppendString(nil, connID))
		if sv.opts.ConfiguredUI {
			_, _, hasBuild := member(srv, "buildId")
			_, _, hasSource := member(srv, "controlUiBuildSource")
			if hasBuild || hasSource {
				srv = setMember(srv, "controlUiBuildSource", []byte(`"configured"`))
			}
		}
		p = setMember(p, "server", srv)
		if auth, ok := jsonx.Get(p, "auth"); ok && jsonx.KindOf(auth) == jsonx.Object {
			p = setMember(p, "auth", deleteMember(deleteMember(auth, "deviceToken"), "deviceTokens"))
		}
	} else {
		p = sv.synthHello(sc, proto, connID, params)
	}
	b := make([]byte, 0, len(p)+64)
	b = append(b, `{"type":"res","id":`...)
	b = append(b, id...)
	b = append(b, `,"ok":true,"payload":`...)
	b = append(b, p...)
	return append(b, '}')
}

func (sv *Server) synthHello(sc *Script, proto int, connID string, params []byte) []byte {
	version := sc.ServerVersion
	if version == "" {
		version = "clawtap-serve"
	}
	b := []byte(`{"type":"hello-ok","protocol":`)
	b = jsonx.AppendInt(b, int64(proto))
	b = append(b, `,"server":{"version":`...)
	b = jsonx.AppendString(b, version)
	b = append(b, `,"connId":`...)
	b = jsonx.AppendString(b, connID)
	b = append(b, `},"features":{"methods":`...)
	methods := sc.Methods()
	if sv.opts.OnSend == OnSendNextRun && sc.Sends() > 0 && !contains(methods, "chat.send") {
		methods = append(append([]string(nil), methods...), "chat.send")
	}
	b = appendStrings(b, methods)
	b = append(b, `,"events":`...)
	b = appendStrings(b, sc.EventNames())
	b = append(b, `},"snapshot":{"presence":[],"health":{},"stateVersion":{"presence":0,"health":0},"uptimeMs":0}`...)
	role, ok := jsonx.GetStr(params, "role")
	if !ok || role == "" {
		role = "operator"
	}
	b = append(b, `,"auth":{"role":`...)
	b = jsonx.AppendString(b, role)
	b = append(b, `,"scopes":`...)
	if sc, ok := jsonx.Get(params, "scopes"); ok && jsonx.KindOf(sc) == jsonx.Array {
		b = append(b, sc...)
	} else {
		b = append(b, `[]`...)
	}
	b = append(b, `},"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000}}`...)
	return b
}

func appendStrings(b []byte, xs []string) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, x)
	}
	return append(b, ']')
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// newUUID reads a random (version 4) UUID from r.
func newUUID(r io.Reader) (string, error) {
	var u [16]byte
	if _, err := io.ReadFull(r, u[:]); err != nil {
		return "", fmt.Errorf("random source: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}

func jsonStr(v []byte) (string, bool) { return jsonx.Str(v) }
