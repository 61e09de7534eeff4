package record

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// DialFunc connects to the gateway and completes the handshake, as
// gateway.Dial does.
type DialFunc func(ctx context.Context, url string, opts gateway.Options) (*gateway.Conn, error)

// Direct is a recording made as a client of the gateway.
type Direct struct {
	// URL is the gateway's WebSocket URL.
	URL string
	// Options are the credentials, device identity and scopes to connect
	// with. Now, OnOpen and OnFrame are the Recorder's.
	Options gateway.Options
	// Dial connects; gateway.Dial when nil.
	Dial DialFunc
	// SubscribeSessions calls sessions.subscribe after each handshake, as
	// the Control UI does, so session.tool and sessions.changed are
	// recorded too (the gateway sends tool stream events only to the
	// connection that sent the message). clawtap record sets it unless
	// --subscribe-sessions=false.
	SubscribeSessions bool
	// NoReconnect ends the recording when an established connection ends,
	// instead of reconnecting.
	NoReconnect bool
	// Backoff paces reconnects; a zero Base or Max is DefaultBackoff's.
	Backoff Backoff
	// CloseWait is how long a clean close waits for the gateway's answer;
	// 2 s when zero.
	CloseWait time.Duration
}

// Backoff is capped exponential backoff with jitter: attempt n waits
// between half and all of min(Max, Base·2ⁿ).
type Backoff struct {
	Base, Max time.Duration
	Rand      func() float64 // [0,1); crypto/rand when nil
}

// DefaultBackoff starts at 500 ms and is capped at 15 s.
var DefaultBackoff = Backoff{Base: 500 * time.Millisecond, Max: 15 * time.Second}

// Delay is how long to wait before attempt n (from 0).
func (b Backoff) Delay(attempt int) time.Duration {
	d := float64(b.Base) * math.Pow(2, float64(attempt))
	if d > float64(b.Max) || math.IsInf(d, 0) {
		d = float64(b.Max)
	}
	return time.Duration(d/2 + d/2*b.jitter())
}

func (b Backoff) jitter() float64 {
	if b.Rand != nil {
		return b.Rand()
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1<<53))
	if err != nil {
		return 0.5
	}
	return float64(n.Int64()) / (1 << 53)
}

// Record records from the gateway at d.URL until ctx ends, reconnecting
// as configured. It returns nil when the recording ended cleanly (ctx
// ended, a limit was reached, the gateway closed with NoReconnect); a
// *gateway.Error when the gateway refused the handshake for a reason
// retrying will not fix or could not be reached at first; a write error
// (IsWriteError) when the capture could not be written; or OnHandshake's
// error.
func (r *Recorder) Record(ctx context.Context, d Direct) error {
	url, err := gateway.NormalizeURL(d.URL)
	if err != nil {
		return err
	}
	ctx, end, err := r.begin(ctx, capture.Source{Mode: "record", URL: gateway.SafeURL(url)})
	if err != nil {
		return err
	}
	d.URL = url
	runErr := r.direct(ctx, d)
	if werr := end(); werr != nil {
		return werr
	}
	return runErr
}

func (r *Recorder) direct(ctx context.Context, d Direct) error {
	if d.Dial == nil {
		d.Dial = gateway.Dial
	}
	if d.Backoff.Base <= 0 {
		d.Backoff.Base = DefaultBackoff.Base
	}
	if d.Backoff.Max <= 0 {
		d.Backoff.Max = DefaultBackoff.Max
	}
	if d.CloseWait == 0 {
		d.CloseWait = 2 * time.Second
	}
	safeURL := gateway.SafeURL(d.URL)
	everConnected := false
	attempt := 0
	for {
		if ctx.Err() != nil {
			return nil
		}
		conn := r.nextConn()
		if everConnected {
			r.setState("reconnecting")
		} else {
			r.setState("connecting")
		}
		opened := false
		opts := d.Options
		opts.Now = r.now
		opts.OnOpen = func(t time.Time) {
			opened = true
			r.mark(capture.Record{T: t.UnixMilli(), Conn: conn, Mark: capture.MarkOpen, URL: safeURL})
		}
		opts.OnFrame = func(f gateway.Frame) { r.frame(conn, f.Dir, f.Time, f.Data, f.Binary) }
		c, err := d.Dial(ctx, d.URL, opts)
		if err != nil {
			if ctx.Err() != nil {
				if opened {
					r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirOut, Code: 1000, Reason: "clawtap stopped recording during the handshake"})
				}
				return nil
			}
			var ge *gateway.Error
			if !errors.As(err, &ge) {
				r.mark(capture.Record{Conn: conn, Mark: capture.MarkError, URL: safeURL, Err: err.Error()})
				return err
			}
			r.mark(capture.Record{Conn: conn, Mark: capture.MarkError, URL: safeURL, Err: ge.Error(), Code: ge.CloseCode, Reason: ge.CloseReason})
			if opened {
				code, reason := ge.CloseCode, ge.CloseReason
				if code == 0 {
					code = 1006
				}
				r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirIn, Code: code, Reason: reason})
			}
			// Retry what time can fix: a gateway still starting always; a
			// lost gateway only once we had a connection and may reconnect.
			retry := ge.Kind == gateway.KindUnavailable || ge.Kind == gateway.KindRateLimited ||
				ge.Kind == gateway.KindNetwork && everConnected && !d.NoReconnect
			if !retry {
				return err
			}
			wait := d.Backoff.Delay(attempt)
			if ge.RetryAfter > 0 {
				wait = ge.RetryAfter + time.Duration(float64(ge.RetryAfter)*0.2*d.Backoff.jitter())
			}
			attempt++
			r.logf("%s; retrying in %s", ge.Error(), wait.Round(time.Millisecond))
			r.setState(fmt.Sprintf("waiting %s to retry", wait.Round(100*time.Millisecond)))
			if !r.clock.Sleep(ctx, wait) {
				return nil
			}
			continue
		}

		h := c.Hello
		if !r.handshaken(capture.Record{Conn: conn, Protocol: h.Protocol, Server: h.ServerVersion, ConnID: h.ConnID, BootID: h.BootID}) {
			_ = c.CloseWith(1000, "clawtap stopped recording", d.CloseWait)
			c.Close()
			return nil // the hook's error is the recording's
		}
		r.resetRuns()
		r.setState("connected")
		if everConnected {
			r.logf("reconnected (connection %d, gateway %s)", conn, orUnknown(h.ServerVersion))
		} else {
			r.logf("connected to %s (gateway %s, protocol %d); recording", safeURL, orUnknown(h.ServerVersion), h.Protocol)
		}
		everConnected = true
		attempt = 0
		code, reason := r.readUntilClosed(ctx, c, d)
		if ctx.Err() != nil {
			r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirOut, Code: 1000, Reason: "clawtap stopped recording"})
			return nil
		}
		r.mark(capture.Record{Conn: conn, Mark: capture.MarkClose, Dir: capture.DirIn, Code: code, Reason: reason})
		why := fmt.Sprintf("the gateway closed the connection (%d %s)", code, reason)
		if code == 1006 {
			why = "the connection to the gateway was lost"
		}
		if r.sawShutdown(conn) {
			why = fmt.Sprintf("the gateway shut down (%d %s)", code, reason)
		}
		if d.NoReconnect {
			r.logf("%s; stopping (--no-reconnect)", why)
			return nil
		}
		wait := d.Backoff.Delay(0)
		attempt = 1
		r.logf("%s; reconnecting in %s", why, wait.Round(time.Millisecond))
		r.setState("reconnecting")
		if !r.clock.Sleep(ctx, wait) {
			return nil
		}
	}
}

// readUntilClosed reads (and so records) every frame of an established
// connection until it ends, closing it cleanly when ctx ends first. It
// returns the close code and reason.
func (r *Recorder) readUntilClosed(ctx context.Context, c *gateway.Conn, d Direct) (int, string) {
	if d.SubscribeSessions {
		if _, err := c.Request("sessions.subscribe", map[string]any{}); err != nil {
			r.warnf("sessions.subscribe: %v", err)
		}
	}
	defer c.Close()
	stopClose := context.AfterFunc(ctx, func() { _ = c.CloseWith(1000, "clawtap stopped recording", d.CloseWait) })
	defer stopClose()
	for {
		f, err := c.Read()
		if err != nil {
			return gateway.CloseStatus(err)
		}
		if d.SubscribeSessions && len(f.Data) < 4096 {
			if msg, refused := subscribeRefused(f.Data); refused {
				r.warnf("sessions.subscribe failed: %s (session.tool and sessions.changed will be missing)", msg)
				r.mu.Lock()
				r.st.SubscribeRefused++
				r.mu.Unlock()
			}
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "version unknown"
	}
	return s
}

// subscribeRefused recognises the gateway's refusal of our
// sessions.subscribe and returns its message.
func subscribeRefused(data []byte) (string, bool) {
	const suffix = "-sessions.subscribe"
	id, ok := jsonx.GetStr(data, "id")
	if !ok || len(id) < len(suffix) || id[len(id)-len(suffix):] != suffix {
		return "", false
	}
	if okv, ok := jsonx.Get(data, "ok"); !ok || string(okv) != "false" {
		return "", false
	}
	msg := "refused"
	if e, ok := jsonx.Get(data, "error"); ok {
		if m, ok := jsonx.GetStr(e, "message"); ok {
			msg = m
		}
	}
	return msg, true
}
