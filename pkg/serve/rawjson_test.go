package serve

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

func TestSetMember(t *testing.T) {
	cases := []struct{ in, key, val, want string }{
		{`{"a":1,"b":2}`, "b", `3`, `{"a":1,"b":3}`},
		{`{"a":1, "b" : "x" }`, "b", `"yy"`, `{"a":1, "b" : "yy" }`},
		{`{"a":1}`, "c", `true`, `{"a":1,"c":true}`},
		{`{}`, "c", `1`, `{"c":1}`},
		{`{ }`, "c", `1`, `{ "c":1}`},
		{`{"a":1,"a":2}`, "a", `9`, `{"a":1,"a":9}`}, // the last duplicate is the one read
		{`{"o":{"b":1},"b":2}`, "b", `5`, `{"o":{"b":1},"b":5}`},
	}
	for _, c := range cases {
		got := string(setMember([]byte(c.in), c.key, []byte(c.val)))
		if got != c.want {
			t.Errorf("setMember(%s, %s, %s) = %s, want %s", c.in, c.key, c.val, got, c.want)
		}
		if !jsonx.Valid([]byte(got)) {
			t.Errorf("invalid JSON: %s", got)
		}
	}
}

func TestDeleteMember(t *testing.T) {
	cases := []struct{ in, key, want string }{
		{`{"a":1,"b":2,"c":3}`, "b", `{"a":1,"c":3}`},
		{`{"a":1,"b":2}`, "a", `{"b":2}`},
		{`{"a":1}`, "a", `{}`},
		{`{"a":1, "b":2}`, "b", `{"a":1}`},
		{`{"a":1,"b":2,"a":3}`, "a", `{"b":2}`},
		{`{"a":1}`, "z", `{"a":1}`},
	}
	for _, c := range cases {
		got := string(deleteMember([]byte(c.in), c.key))
		if got != c.want {
			t.Errorf("deleteMember(%s, %s) = %s, want %s", c.in, c.key, got, c.want)
		}
		if !jsonx.Valid([]byte(got)) {
			t.Errorf("invalid JSON: %s", got)
		}
	}
}

func TestReaddress(t *testing.T) {
	got := string(readdress([]byte(`{"type":"res","id":"old","ok":true,"payload":{"id":"inner"}}`), []byte(`"new-1"`)))
	if want := `{"type":"res","id":"new-1","ok":true,"payload":{"id":"inner"}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func FuzzSetDelete(f *testing.F) {
	f.Add([]byte(`{"a":1,"seq":2}`), "seq")
	f.Add([]byte(`{}`), "id")
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		if jsonx.KindOf(jsonx.TrimSpace(obj)) != jsonx.Object || !jsonx.Valid(obj) {
			return
		}
		if out := setMember(obj, key, []byte(`7`)); !jsonx.Valid(out) {
			t.Fatalf("setMember made invalid JSON: %q", out)
		}
		if out := deleteMember(obj, key); !jsonx.Valid(out) {
			t.Fatalf("deleteMember made invalid JSON: %q", out)
		}
	})
}

func TestValidText(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":"é"}`, `{"a":"é"}`},
		{"{\"a\":\"\xff\xfe\"}", "{\"a\":\"\uFFFD\"}"},
		{"caf\xc3", "caf\uFFFD"},
		{"", ""},
	}
	for _, c := range cases {
		got, changed := validText([]byte(c.in))
		if string(got) != c.want || changed != (c.in != c.want) || !utf8.Valid(got) {
			t.Errorf("validText(%q) = %q, %v; want %q", c.in, got, changed, c.want)
		}
	}
}

func TestCloseReason(t *testing.T) {
	long := strings.Repeat("é", 70) // 140 bytes
	got := closeReason(long)
	if len(got) > 123 || !utf8.ValidString(got) || got != strings.Repeat("é", 61) {
		t.Fatalf("closeReason cut %q (%d bytes)", got, len(got))
	}
	if got := closeReason("service\xff restart"); got != "service\uFFFD restart" {
		t.Fatalf("closeReason = %q", got)
	}
	if got := closeReason("service restart"); got != "service restart" {
		t.Fatalf("closeReason = %q", got)
	}
}
