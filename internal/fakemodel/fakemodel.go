// Package fakemodel is a fake OpenAI-compatible chat-completions server for
// clawtap's end-to-end tests: a real OpenClaw gateway is pointed at it as
// its model provider, so agent runs stream offline and predictably.
//
// What it answers depends on keywords in the user's latest real message:
//
//	TOOL    a tool call (ls, or another harmless tool the request offers),
//	        then, once the tool result comes back, ToolDoneReply
//	SLOW    60 words, 250 ms apart (long enough to abort)
//	FAST    40 tokens, 10 ms apart (shows the gateway's pacing)
//	other   DefaultReply, 12 tokens, 60 ms apart
//
// OpenClaw prefixes the user's text with a timestamp and appends an internal
// context message after it, and an aborted run leaves no assistant message,
// so "the user's latest real message" is the last user message after the
// last assistant message that is not internal context.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Replies, exported so tests can look for them in captures.
const (
	DefaultReply  = "Hello from the fake model! This reply is streamed token by token."
	ToolDoneReply = "The tool ran and returned its output. Tool test complete."
	NoToolReply   = "No tools were offered to me."
)

// SlowWords and FastTokens build the SLOW and FAST replies.
func SlowWords() []string { return numbered("word", 60) }

// FastTokens is the FAST reply's tokens.
func FastTokens() []string { return numbered("t", 40) }

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}

// Request is what the server saw in one chat-completions call.
type Request struct {
	N         int
	Stream    bool
	Model     string
	Roles     []string
	UserText  string   // the latest real user text
	Tools     []string // tool names offered
	ToolCall  string   // the tool it called, if any
	Reply     string   // the text it streamed (as far as it got)
	Aborted   bool     // the client went away mid-stream
	AfterTool bool
}

// Server is the fake model. The zero value works.
type Server struct {
	// TokenDelay is the default reply's delay between tokens (60 ms when 0).
	TokenDelay time.Duration
	// OnRequest, when set, is called once per chat-completions request,
	// after it is answered.
	OnRequest func(Request)

	n  atomic.Int64
	mu sync.Mutex
	// Requests keeps every request seen (for tests).
	requests []Request
}

// Requests returns every request answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// text flattens a message content: a string or an array of parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

const internalContext = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT"

// latestUserText finds the user's latest real text and whether a tool
// result came back since the last assistant message.
func latestUserText(msgs []chatMessage) (string, bool) {
	last := -1
	for i, m := range msgs {
		if m.Role == "assistant" {
			last = i
		}
	}
	user, afterTool := "", false
	for _, m := range msgs[last+1:] {
		switch m.Role {
		case "tool":
			afterTool = true
		case "user":
			t := text(m.Content)
			if !strings.HasPrefix(strings.TrimSpace(t), internalContext) {
				user = t
			}
		}
	}
	return user, afterTool
}

// pickTool chooses a harmless tool the request offers, with valid args.
func pickTool(offered []string) (string, string) {
	has := map[string]bool{}
	for _, n := range offered {
		has[n] = true
	}
	for _, c := range []struct{ name, args string }{{"ls", `{"path":"."}`}, {"session_status", `{}`}} {
		if has[c.name] {
			return c.name, c.args
		}
	}
	if len(offered) > 0 {
		return offered[0], `{}`
	}
	return "", ""
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","object":"model","owned_by":"clawtap"}]}`)
		return
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	info := Request{N: int(s.n.Add(1)), Stream: req.Stream, Model: req.Model}
	for _, m := range req.Messages {
		info.Roles = append(info.Roles, m.Role)
	}
	for _, t := range req.Tools {
		info.Tools = append(info.Tools, t.Function.Name)
	}
	info.UserText, info.AfterTool = latestUserText(req.Messages)

	delay := s.TokenDelay
	if delay == 0 {
		delay = 60 * time.Millisecond
	}
	var words []string
	var toolName, toolArgs string
	switch {
	case info.AfterTool:
		words = strings.Fields(ToolDoneReply)
	case strings.Contains(info.UserText, "TOOL"):
		toolName, toolArgs = pickTool(info.Tools)
		if toolName == "" {
			words = strings.Fields(NoToolReply)
		}
	case strings.Contains(info.UserText, "SLOW"):
		words, delay = SlowWords(), 250*time.Millisecond
	case strings.Contains(info.UserText, "FAST"):
		words, delay = FastTokens(), 10*time.Millisecond
	default:
		words = strings.Fields(DefaultReply)
	}
	info.ToolCall = toolName
	defer func() {
		s.mu.Lock()
		s.requests = append(s.requests, info)
		s.mu.Unlock()
		if s.OnRequest != nil {
			s.OnRequest(info)
		}
	}()

	id := fmt.Sprintf("chatcmpl-fake-%d", info.N)
	created := time.Now().Unix()
	model := req.Model
	if model == "" {
		model = "fake-model"
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": strings.Join(words, " ")}
		finish := "stop"
		if toolName != "" {
			msg["content"] = nil
			msg["tool_calls"] = []any{map[string]any{"id": fmt.Sprintf("call_fake_%d", info.N), "type": "function",
				"function": map[string]any{"name": toolName, "arguments": toolArgs}}}
			finish = "tool_calls"
		}
		info.Reply = strings.Join(words, " ")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": len(words), "total_tokens": 10 + len(words)}})
		return
	}

	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return r.Context().Err() == nil
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	wait := func(d time.Duration) bool {
		select {
		case <-r.Context().Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	ok := send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if toolName != "" {
		callID := fmt.Sprintf("call_fake_%d", info.N)
		ok = ok && send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": callID, "type": "function",
			"function": map[string]any{"name": toolName, "arguments": ""}}}}, nil))
		half := len(toolArgs) / 2
		for _, piece := range []string{toolArgs[:half], toolArgs[half:]} {
			ok = ok && wait(delay) && send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0,
				"function": map[string]any{"arguments": piece}}}}, nil))
		}
		ok = ok && send(chunk(map[string]any{}, "tool_calls"))
	} else {
		var sent []string
		for i, word := range words {
			if i > 0 {
				word = " " + word
			}
			if !ok || !send(chunk(map[string]any{"content": word}, nil)) {
				ok = false
				break
			}
			sent = append(sent, strings.TrimSpace(word))
			if !wait(delay) {
				ok = false
				break
			}
		}
		info.Reply = strings.Join(sent, " ")
		ok = ok && send(chunk(map[string]any{}, "stop"))
	}
	if !ok {
		info.Aborted = true
		return
	}
	send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 42, "completion_tokens": len(words), "total_tokens": 42 + len(words)}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}
