package validate

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A --schema is read from its folder only: a $ref to a file elsewhere (by
// a relative path, an absolute file: URL, or a link in the folder) is an
// error, and nothing is ever fetched.
func TestSchemaRefsStayInTheFolder(t *testing.T) {
	base := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A file outside every schema folder: its content must never be read.
	secret := write("private/secret.json", `{"definitions":{"Seq":{"type":"integer"}},"planted":"SECRET-FILE-CONTENT"}`)
	ref := func(to string) string {
		return `{"definitions":{"TickEvent":{"type":"object","properties":{"ts":{"$ref":"` + to + `"}}}}}`
	}
	cases := map[string]string{
		"up/protocol.schema.json":   ref("../private/secret.json#/definitions/Seq"),
		"abs/protocol.schema.json":  ref("file://" + filepath.ToSlash(secret) + "#/definitions/Seq"),
		"deep/protocol.schema.json": ref("a/../../private/secret.json#/definitions/Seq"),
	}
	for name, text := range cases {
		p := write(name, text)
		for _, arg := range []string{p, filepath.Dir(p)} {
			_, err := Load(arg)
			if err == nil || !strings.Contains(err.Error(), "outside") {
				t.Errorf("%s (%s): %v, want an error saying the file is outside the schema's folder", name, arg, err)
			}
			if err != nil && strings.Contains(err.Error(), "SECRET-FILE-CONTENT") {
				t.Errorf("%s: the outside file was read: %v", name, err)
			}
		}
	}
	// A link in the folder to a file outside it.
	link := filepath.Join(base, "link")
	write("link/protocol.schema.json", ref("seq.json#/definitions/Seq"))
	if err := os.Symlink(secret, filepath.Join(link, "seq.json")); err != nil {
		t.Skip(err)
	}
	for _, arg := range []string{link, filepath.Join(link, rootFile)} {
		if _, err := Load(arg); err == nil {
			t.Errorf("%s: a link out of the folder was followed", arg)
		}
	}
	// The same schema with the file really in the folder loads.
	write("inside/seq.json", `{"definitions":{"Seq":{"type":"integer"}}}`)
	write("inside/protocol.schema.json", ref("seq.json#/definitions/Seq"))
	if _, err := Load(filepath.Join(base, "inside")); err != nil {
		t.Errorf("a ref within the folder: %v", err)
	}
}

// No other scheme is fetched: a local web server sees no request.
func TestSchemaRefsNeverFetched(t *testing.T) {
	var hits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"definitions":{"Seq":{"type":"integer"}}}`)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	dir := t.TempDir()
	for i, to := range []string{"http://" + ln.Addr().String() + "/seq.json", "https://" + ln.Addr().String() + "/seq.json", "ftp://" + ln.Addr().String() + "/x"} {
		p := filepath.Join(dir, fmt.Sprint(i), rootFile)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(`{"definitions":{"TickEvent":{"properties":{"ts":{"$ref":"`+to+`#/definitions/Seq"}}}}}`), 0o600)
		if _, err := Load(p); err == nil {
			t.Errorf("%s: loaded", to)
		}
	}
	if n := hits.Load(); n > 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// A pattern with catastrophic backtracking costs a bounded time, not 10 s
// a value with no end: it is given up on and reported, and the values it
// would have judged are not accused.
func TestSlowPatternIsBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, rootFile)
	os.WriteFile(p, []byte(`{"definitions":{"EventFrame":{"type":"object"},"TickEvent":{"type":"object","properties":{"id":{"type":"string","pattern":"^(a+)+$"},"n":{"type":"string","pattern":"^[0-9]+$"}}}}}`), 0o600)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i := range 200 {
		texts = append(texts, fmt.Sprintf(`{"type":"event","event":"tick","payload":{"id":"%s!","n":"x%d"}}`, strings.Repeat("a", 40), i))
	}
	start := time.Now()
	fs, sum := run(t, s, Options{}, frames(1, texts...))
	took := time.Since(start)
	if took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	slow := byRule(fs, RulePatternTimeout)
	if len(slow) != 1 || !strings.Contains(slow[0].Message, "^(a+)+$") {
		t.Errorf("pattern findings:\n%s", dump(slow))
	}
	if sum.PatternTimeouts < 200 {
		t.Errorf("patternTimeouts %d, want every value it skipped", sum.PatternTimeouts)
	}
	// The other pattern still works: every "n" is a violation.
	if v := byRule(fs, RuleViolation); len(v) != 200 {
		t.Errorf("%d violations of the fast pattern, want 200", len(v))
	}
}
