package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url string, body any) ([]map[string]any, error) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var chunks []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		if line == "" || line == sc.Text() || line == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad chunk %q", line)
		}
		chunks = append(chunks, m)
	}
	return chunks, nil
}

func content(chunks []map[string]any) (string, string) {
	var text, tool strings.Builder
	for _, c := range chunks {
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			d := ch.(map[string]any)["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				text.WriteString(s)
			}
			if tc, ok := d["tool_calls"].([]any); ok {
				f := tc[0].(map[string]any)["function"].(map[string]any)
				if n, ok := f["name"].(string); ok {
					tool.WriteString(n + ":")
				}
				tool.WriteString(f["arguments"].(string))
			}
		}
	}
	return text.String(), tool.String()
}

func TestKeywordsFollowTheRealUserText(t *testing.T) {
	s := &Server{TokenDelay: time.Millisecond}
	hs := httptest.NewServer(s)
	defer hs.Close()
	msgs := func(extra ...map[string]any) map[string]any {
		m := []map[string]any{
			{"role": "system", "content": "You are TOOL-happy"},
			{"role": "user", "content": "[Sun 2026-11-22 03:13 UTC] hi"},
			{"role": "assistant", "content": "earlier"},
		}
		return map[string]any{"model": "fake-model", "stream": true, "messages": append(m, extra...),
			"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read"}},
				map[string]any{"type": "function", "function": map[string]any{"name": "ls"}}}}
	}
	internal := map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> SLOW TOOL"}}}

	chunks, _ := post(t, hs.URL, msgs(map[string]any{"role": "user", "content": "[Sun] say hello"}, internal))
	if txt, _ := content(chunks); txt != DefaultReply {
		t.Errorf("default: %q", txt)
	}
	chunks, _ = post(t, hs.URL, msgs(map[string]any{"role": "user", "content": "[Sun] run a TOOL"}, internal))
	if _, tool := content(chunks); tool != `ls:{"path":"."}` {
		t.Errorf("tool: %q", tool)
	}
	chunks, _ = post(t, hs.URL, msgs(map[string]any{"role": "user", "content": "run a TOOL"},
		map[string]any{"role": "assistant", "content": nil}, map[string]any{"role": "tool", "content": "a b"}))
	if txt, _ := content(chunks); txt != ToolDoneReply {
		t.Errorf("after tool: %q", txt)
	}
	chunks, _ = post(t, hs.URL, msgs(map[string]any{"role": "user", "content": "FAST please"}))
	if txt, _ := content(chunks); txt != strings.Join(FastTokens(), " ") {
		t.Errorf("fast: %q", txt)
	}
	reqs := s.Requests()
	if len(reqs) != 4 || reqs[0].UserText != "[Sun] say hello" || reqs[1].ToolCall != "ls" || !reqs[2].AfterTool {
		t.Errorf("requests %+v", reqs)
	}
}

func TestAbortStopsTheStream(t *testing.T) {
	done := make(chan Request, 1)
	s := &Server{OnRequest: func(r Request) { done <- r }}
	hs := httptest.NewServer(s)
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	b, _ := json.Marshal(map[string]any{"stream": true, "messages": []any{map[string]any{"role": "user", "content": "SLOW"}}})
	req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/v1/chat/completions", strings.NewReader(string(b)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	resp.Body.Read(buf)
	time.Sleep(600 * time.Millisecond)
	cancel()
	resp.Body.Close()
	select {
	case r := <-done:
		if !r.Aborted || r.Reply == "" || len(strings.Fields(r.Reply)) > 10 {
			t.Errorf("abort: %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stream did not stop")
	}
}

func TestNonStreamingAndModels(t *testing.T) {
	hs := httptest.NewServer(&Server{})
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatal(err)
	}
	resp.Body.Close()
	b, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}})
	resp, err = http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if len(out.Choices) != 1 || out.Choices[0].Message.Content != DefaultReply {
		t.Errorf("%+v", out)
	}
}
