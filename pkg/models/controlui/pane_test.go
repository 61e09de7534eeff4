package controlui

import "testing"

// TestNextStream: a delta's next text is the cumulative message when the
// frame has one (equal to the appended text or not), a replacement's text,
// else the text so far with the delta appended.
func TestNextStream(t *testing.T) {
	cur := "Hello"
	for _, c := range []struct {
		name string
		cur  *string
		f    chatFrame
		want string
		ok   bool
	}{
		{"no delta, no message", &cur, chatFrame{}, "", false},
		{"no delta, a message", &cur, chatFrame{msg: message{ok: true, text: "Hi"}}, "Hi", true},
		{"replace", &cur, chatFrame{hasDelta: true, replace: true, deltaText: "New", msg: message{ok: true, text: "Hi"}}, "New", true},
		{"message is the appended text", &cur, chatFrame{hasDelta: true, deltaText: " you", msg: message{ok: true, text: "Hello you"}}, "Hello you", true},
		{"message differs", &cur, chatFrame{hasDelta: true, deltaText: " you", msg: message{ok: true, text: "Hi there"}}, "Hi there", true},
		{"no message, no text yet", nil, chatFrame{hasDelta: true, deltaText: "Hel"}, "Hel", true},
		{"no message", &cur, chatFrame{hasDelta: true, deltaText: " you"}, "Hello you", true},
	} {
		if got, ok := nextStream(c.cur, &c.f); got != c.want || ok != c.ok {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
