package bridge

import "testing"

func TestFilter(t *testing.T) {
	chat := &Event{Kind: RuntimeChat, Event: "chat", AgentID: "main", SessionKey: "agent:main:main", HasSessionKey: true, RunID: "r1"}
	req := &Event{Kind: Request, Method: "chat.send"}
	for _, c := range []struct {
		f         Filter
		chat, req bool
	}{
		{Filter{}, true, true},
		{Filter{Kinds: []string{"runtime-chat"}}, true, false},
		{Filter{Events: []string{"chat.send"}}, false, true},
		{Filter{Agents: []string{"main"}, Runs: []string{"r1", "r2"}}, true, false},
		{Filter{Sessions: []string{"agent:main:main"}}, true, false},
		{Filter{Runs: []string{"r2"}}, false, false},
	} {
		if c.f.Match(chat) != c.chat || c.f.Match(req) != c.req {
			t.Errorf("%+v: chat %v req %v", c.f, c.f.Match(chat), c.f.Match(req))
		}
	}
}
