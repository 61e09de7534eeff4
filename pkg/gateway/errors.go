package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Kind says what went wrong when connecting, in the terms a user acts on.
type Kind int

// Error kinds. Network, Unavailable and RateLimited are worth retrying; the
// others need the user to change something.
const (
	KindOther            Kind = iota // any other rejection
	KindNetwork                      // the gateway could not be reached or the connection dropped
	KindUnavailable                  // the gateway is starting, restarting or draining
	KindRateLimited                  // too many failed attempts; wait
	KindTokenMismatch                // wrong or missing token/password, or a stale device token
	KindPairingRequired              // the device must be approved on the gateway
	KindProtocolMismatch             // no protocol version in common
	KindMissingScope                 // the gateway refused a scope
	KindDeviceAuth                   // the device signature or identity was rejected
)

var kindNames = [...]string{"rejected", "network", "unavailable", "rate-limited", "token-mismatch",
	"pairing-required", "protocol-mismatch", "missing-scope", "device-auth"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Sentinels for errors.Is: an *Error matches the sentinel of its Kind.
var (
	ErrNetwork          = &Error{Kind: KindNetwork}
	ErrUnavailable      = &Error{Kind: KindUnavailable}
	ErrRateLimited      = &Error{Kind: KindRateLimited}
	ErrTokenMismatch    = &Error{Kind: KindTokenMismatch}
	ErrPairingRequired  = &Error{Kind: KindPairingRequired}
	ErrProtocolMismatch = &Error{Kind: KindProtocolMismatch}
	ErrMissingScope     = &Error{Kind: KindMissingScope}
	ErrDeviceAuth       = &Error{Kind: KindDeviceAuth}
)

// ErrorShape is a res frame's error object.
type ErrorShape struct {
	Code         string          `json:"code"`
	Message      string          `json:"message"`
	Details      json.RawMessage `json:"details,omitempty"`
	Retryable    bool            `json:"retryable,omitempty"`
	RetryAfterMs int64           `json:"retryAfterMs,omitempty"`
}

type errorDetails struct {
	Code                string   `json:"code"`
	Reason              string   `json:"reason"`
	RequestID           string   `json:"requestId"`
	MissingScope        string   `json:"missingScope"`
	RequiredScopes      []string `json:"requiredScopes"`
	ExpectedProtocol    int      `json:"expectedProtocol"`
	RecommendedNextStep string   `json:"recommendedNextStep"`
	AuthReason          string   `json:"authReason"`
	RetryAfterMs        int64    `json:"retryAfterMs"`
}

// Error is a failed connect, with what the gateway said and what to do.
// Its text never contains a credential.
type Error struct {
	Kind Kind
	URL  string // the gateway URL, without user info or query

	Code       string // error.code, e.g. INVALID_REQUEST, UNAVAILABLE, NOT_PAIRED
	DetailCode string // error.details.code, e.g. AUTH_TOKEN_MISMATCH
	Message    string // the gateway's message
	Reason     string // details.reason
	RequestID  string // pairing request id, when the gateway gave one
	Scope      string // the missing scope
	Expected   int    // protocol the gateway expects

	RetryAfter  time.Duration // how long the gateway asked us to wait
	CloseCode   int           // WebSocket close code, when the gateway closed
	CloseReason string
	HTTPStatus  int   // the upgrade's HTTP status when it was refused
	Err         error // the underlying error, when there is one

	// StoredDeviceToken is set when the connect used a stored device token
	// rather than a shared secret.
	StoredDeviceToken bool
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of the same Kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == "" && t.Message == "" && t.Err == nil && t.Kind == e.Kind
}

// Retryable reports whether trying again later may succeed.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindNetwork, KindUnavailable, KindRateLimited:
		return true
	}
	return false
}

// Error is one line: what happened, in plain words.
func (e *Error) Error() string {
	where := "the gateway"
	if e.URL != "" {
		where = "the gateway at " + e.URL
	}
	said := ""
	if e.Message != "" {
		said = ` (it said: "` + oneLine(e.Message) + `")`
	} else if e.CloseReason != "" {
		said = ` (it said: "` + oneLine(e.CloseReason) + `")`
	}
	switch e.Kind {
	case KindNetwork:
		if e.Err != nil {
			return fmt.Sprintf("cannot reach %s: %v", where, e.Err)
		}
		return "cannot reach " + where
	case KindUnavailable:
		return where + " is starting or restarting and cannot take connections yet" + said
	case KindRateLimited:
		return where + " is rate-limiting connect attempts after failed logins" + said
	case KindTokenMismatch:
		switch {
		case e.StoredDeviceToken || e.DetailCode == "AUTH_DEVICE_TOKEN_MISMATCH":
			return where + " rejected the device token clawtap stored for it" + said
		case strings.Contains(e.DetailCode, "PASSWORD_MISSING"), strings.Contains(e.DetailCode, "TOKEN_MISSING"), e.DetailCode == "AUTH_REQUIRED":
			return where + " needs a token or password and none was given" + said
		case strings.Contains(e.DetailCode, "PASSWORD"):
			return where + " rejected the password" + said
		}
		return where + " rejected the token (token mismatch)" + said
	case KindPairingRequired:
		s := where + " has not approved this device yet (pairing required)"
		if e.RequestID != "" {
			s += ", request " + e.RequestID
		}
		return s
	case KindProtocolMismatch:
		if e.Expected != 0 {
			return fmt.Sprintf("%s speaks protocol %d; clawtap speaks %d to %d (protocol mismatch)", where, e.Expected, MinProtocol, MaxProtocol)
		}
		return where + " has no protocol version in common with clawtap (protocol mismatch)" + said
	case KindMissingScope:
		if e.Scope != "" {
			return where + " refused the scope " + e.Scope + " for this device" + said
		}
		return where + " refused the requested scopes for this device" + said
	case KindDeviceAuth:
		return where + " rejected the device signature (" + e.DetailCode + ")" + said
	}
	switch {
	case e.HTTPStatus != 0:
		return fmt.Sprintf("%s refused the WebSocket upgrade with HTTP %d", where, e.HTTPStatus)
	case e.Code != "" || e.Message != "":
		return fmt.Sprintf("%s rejected the connection: %s %s", where, strings.TrimSpace(e.Code+" "+e.DetailCode), said)
	case e.CloseCode != 0:
		return fmt.Sprintf("%s closed the connection during the handshake (code %d)%s", where, e.CloseCode, said)
	case e.Err != nil:
		return fmt.Sprintf("connect to %s: %v", where, e.Err)
	}
	return "connect to " + where + " failed"
}

// Hint says what to do about it, in one line.
func (e *Error) Hint() string {
	switch e.Kind {
	case KindNetwork:
		return "is the gateway running? start it with 'openclaw gateway run', or point --url at it"
	case KindUnavailable:
		return "wait a few seconds and try again; clawtap retries this by itself while recording"
	case KindRateLimited:
		return "wait a minute, then check the token or password before trying again"
	case KindTokenMismatch:
		if e.StoredDeviceToken || e.DetailCode == "AUTH_DEVICE_TOKEN_MISMATCH" {
			return "pass the gateway's shared token with --token-file or OPENCLAW_GATEWAY_TOKEN (clawtap then stores a fresh device token)"
		}
		if strings.Contains(e.DetailCode, "PASSWORD") {
			return "put the gateway's password (gateway.auth.password) in a file for --password-file, or in OPENCLAW_GATEWAY_PASSWORD"
		}
		return "put the gateway's token (gateway.auth.token; 'openclaw config get gateway.auth.token' shows it) in a file for --token-file, or in OPENCLAW_GATEWAY_TOKEN"
	case KindPairingRequired:
		if e.RequestID != "" {
			return "on the gateway host run 'openclaw devices approve " + e.RequestID + "', then run clawtap again"
		}
		return "on the gateway host run 'openclaw devices list' and 'openclaw devices approve <requestId>', then run clawtap again"
	case KindProtocolMismatch:
		return "upgrade clawtap or the gateway so that they share a protocol version"
	case KindMissingScope:
		return "approve the scope upgrade on the gateway host ('openclaw devices list', then 'openclaw devices approve <requestId>'), or ask for fewer scopes with --scopes"
	case KindDeviceAuth:
		return "check that this machine's clock is right; if it persists, move the identity file away so clawtap creates a new device (it then needs pairing again)"
	}
	if e.HTTPStatus == 404 {
		return "check --url: it must be the gateway's WebSocket address, e.g. ws://127.0.0.1:18789"
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// errorFromShape maps a connect error response to an *Error.
func errorFromShape(es ErrorShape) *Error {
	e := &Error{Code: es.Code, Message: es.Message}
	var d errorDetails
	if len(es.Details) > 0 {
		_ = json.Unmarshal(es.Details, &d)
	}
	e.DetailCode, e.Reason, e.RequestID, e.Scope, e.Expected = d.Code, d.Reason, d.RequestID, d.MissingScope, d.ExpectedProtocol
	if es.RetryAfterMs > 0 {
		e.RetryAfter = time.Duration(es.RetryAfterMs) * time.Millisecond
	} else if d.RetryAfterMs > 0 {
		e.RetryAfter = time.Duration(d.RetryAfterMs) * time.Millisecond
	}
	msg := strings.ToLower(es.Message)
	switch {
	case d.Code == "PAIRING_REQUIRED" || es.Code == "NOT_PAIRED":
		e.Kind = KindPairingRequired
	case d.Code == "AUTH_RATE_LIMITED":
		e.Kind = KindRateLimited
	case d.Code == "PROTOCOL_MISMATCH" || strings.Contains(msg, "protocol mismatch"):
		e.Kind = KindProtocolMismatch
	case d.Code == "MISSING_SCOPE" || d.Code == "AUTH_SCOPE_MISMATCH" || strings.HasPrefix(msg, "missing scope"):
		e.Kind = KindMissingScope
		if e.Scope == "" && strings.HasPrefix(msg, "missing scope:") {
			e.Scope = strings.TrimSpace(es.Message[len("missing scope:"):])
		}
	case strings.HasPrefix(d.Code, "DEVICE_AUTH_") || d.Code == "DEVICE_IDENTITY_REQUIRED" || d.Code == "CONTROL_UI_DEVICE_IDENTITY_REQUIRED":
		e.Kind = KindDeviceAuth
	case strings.HasPrefix(d.Code, "AUTH_TOKEN_") || strings.HasPrefix(d.Code, "AUTH_PASSWORD_") ||
		d.Code == "AUTH_DEVICE_TOKEN_MISMATCH" || d.Code == "AUTH_REQUIRED" || d.Code == "AUTH_UNAUTHORIZED" ||
		strings.Contains(msg, "token mismatch") || strings.Contains(msg, "password mismatch"):
		e.Kind = KindTokenMismatch
	case es.Code == "UNAVAILABLE" || es.Retryable:
		e.Kind = KindUnavailable
	default:
		e.Kind = KindOther
	}
	return e
}

// errorFromClose maps a close during the handshake to an *Error.
func errorFromClose(ce *websocket.CloseError) *Error {
	e := &Error{CloseCode: ce.Code, CloseReason: ce.Text, Err: ce}
	reason := strings.ToLower(ce.Text)
	switch {
	case ce.Code == 1013 || ce.Code == websocket.CloseServiceRestart || ce.Code == websocket.CloseGoingAway:
		e.Kind = KindUnavailable
	case ce.Code == websocket.CloseProtocolError && strings.Contains(reason, "protocol mismatch"):
		e.Kind = KindProtocolMismatch
	case strings.Contains(reason, "pairing required"):
		e.Kind = KindPairingRequired
		if i := strings.Index(ce.Text, "requestId: "); i >= 0 {
			e.RequestID = strings.TrimRight(ce.Text[i+len("requestId: "):], ") ")
		}
	case strings.Contains(reason, "token mismatch") || strings.Contains(reason, "password mismatch") || strings.Contains(reason, "unauthorized"):
		e.Kind = KindTokenMismatch
	case ce.Code == websocket.CloseAbnormalClosure:
		e.Kind = KindNetwork
	default:
		e.Kind = KindOther
	}
	return e
}

// CloseStatus returns the close code and reason that ended a connection:
// the peer's close frame, or 1006 when the connection just dropped.
func CloseStatus(err error) (code int, reason string) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, ce.Text
	}
	var ge *Error
	if errors.As(err, &ge) && ge.CloseCode != 0 {
		return ge.CloseCode, ge.CloseReason
	}
	return websocket.CloseAbnormalClosure, ""
}
