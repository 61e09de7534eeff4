package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Message is a frame the Client received, parsed.
type Message struct {
	Type    string          // event, res
	Event   string          // event name
	ID      string          // res id
	OK      bool            // res ok
	Payload json.RawMessage // payload
	Error   *ErrorShape     // res error
	Seq     int64           // frame seq, when HasSeq
	HasSeq  bool
	Raw     []byte // the whole frame
}

// Response is a res frame.
type Response struct {
	ID      string
	OK      bool
	Payload json.RawMessage
	Error   *ErrorShape
}

// Err returns the response's error as a Go error, nil when ok.
func (r Response) Err() error {
	if r.OK {
		return nil
	}
	if r.Error == nil {
		return errors.New("request failed")
	}
	return fmt.Errorf("%s: %s", r.Error.Code, r.Error.Message)
}

// Client drives a Conn: it reads in the background, matches responses to
// requests and lets callers wait for events. It keeps every message it
// received (for Wait), so it suits scripts and tests, not long recordings.
type Client struct {
	conn *Conn

	mu      sync.Mutex
	msgs    []Message
	changed chan struct{} // closed and replaced when msgs grows or the conn ends
	err     error         // why reading stopped
	done    chan struct{}
}

// NewClient starts reading conn in the background.
func NewClient(conn *Conn) *Client {
	cl := &Client{conn: conn, changed: make(chan struct{}), done: make(chan struct{})}
	go cl.loop()
	return cl
}

// Conn returns the underlying connection.
func (cl *Client) Conn() *Conn { return cl.conn }

// Done is closed when the connection has ended.
func (cl *Client) Done() <-chan struct{} { return cl.done }

// Err returns why the connection ended, once Done is closed.
func (cl *Client) Err() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.err
}

func (cl *Client) loop() {
	defer close(cl.done)
	for {
		f, err := cl.conn.Read()
		cl.mu.Lock()
		if err != nil {
			cl.err = err
			close(cl.changed)
			cl.changed = make(chan struct{})
			cl.mu.Unlock()
			return
		}
		cl.msgs = append(cl.msgs, parseMessage(bytes.Clone(f.Data)))
		close(cl.changed)
		cl.changed = make(chan struct{})
		cl.mu.Unlock()
	}
}

func parseMessage(raw []byte) Message {
	var fr inFrame
	m := Message{Raw: raw}
	if json.Unmarshal(raw, &fr) != nil {
		return m
	}
	m.Type, m.Event, m.Payload, m.Error = fr.Type, fr.Event, fr.Payload, fr.Error
	if fr.ID != nil {
		m.ID = idString(fr.ID)
	}
	if fr.OK != nil {
		m.OK = *fr.OK
	}
	if fr.Seq != nil {
		m.Seq, m.HasSeq = *fr.Seq, true
	}
	return m
}

// Messages returns a copy of everything received so far.
func (cl *Client) Messages() []Message {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return append([]Message(nil), cl.msgs...)
}

// Wait returns the first message received (at any time, earlier ones
// included) that match accepts, waiting for it until ctx ends or the
// connection closes.
func (cl *Client) Wait(ctx context.Context, match func(Message) bool) (Message, error) {
	seen := 0
	for {
		cl.mu.Lock()
		for ; seen < len(cl.msgs); seen++ {
			if match(cl.msgs[seen]) {
				m := cl.msgs[seen]
				cl.mu.Unlock()
				return m, nil
			}
		}
		ch, err := cl.changed, cl.err
		cl.mu.Unlock()
		if err != nil {
			return Message{}, fmt.Errorf("connection closed: %w", err)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// Call sends a request and waits for its first response.
func (cl *Client) Call(ctx context.Context, method string, params any) (Response, error) {
	id, err := cl.conn.Request(method, params)
	if err != nil {
		return Response{}, err
	}
	m, err := cl.Wait(ctx, func(m Message) bool { return m.Type == "res" && m.ID == id })
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", method, err)
	}
	return Response{ID: m.ID, OK: m.OK, Payload: m.Payload, Error: m.Error}, nil
}

// Close closes the connection cleanly and waits for the reader to stop.
func (cl *Client) Close() error {
	err := cl.conn.CloseWith(1000, "done", defaultCloseWait)
	<-cl.done
	return err
}
