package pipeline

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/bridge"
)

func TestIsClassified(t *testing.T) {
	for in, want := range map[string]bool{
		`{"kind":"summary-refresh","event":"heartbeat"}`:        true,
		"\n\n  {\"kind\":\"marker\",\"mark\":\"open\"}\n":       true,
		`{"kind":"x"` + strings.Repeat(" ", 10000) + `}` + "\n": true,
		`{"clawtap":1}`: false,
		`{"t":1,"dir":"in","frame":{"type":"event"}}`: false,
		`{"type":"event","event":"tick","kind":"x"}`:  false,
		`[1,2]`: false,
		``:      false,
	} {
		br := bufio.NewReader(strings.NewReader(in))
		if got := IsClassified(br); got != want {
			t.Errorf("%.40q: %v, want %v", in, got, want)
		}
		if rest, _ := io.ReadAll(br); string(rest) != in {
			t.Errorf("%.40q: the peek consumed input", in)
		}
	}
}

func TestClassifiedSource(t *testing.T) {
	in := `{"kind":"summary-refresh","event":"heartbeat"}` + "\n\nnot json\n" + `{"i":7,"kind":"runtime-chat","event":"chat"}`
	s := NewClassified(bufio.NewReaderSize(strings.NewReader(in), 16))
	var got []string
	for {
		rec, ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(ev.Kind)+"@"+string(rune('0'+rec.Index)))
		if ev.Kind == bridge.Invalid && !strings.HasPrefix(ev.Reason, "line 3: ") {
			t.Errorf("reason %q", ev.Reason)
		}
	}
	if want := "summary-refresh@0 invalid@1 runtime-chat@7"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
	if s.Bad() != 1 || s.Stats().Records != 3 || s.Header() != nil {
		t.Errorf("bad %d, records %d", s.Bad(), s.Stats().Records)
	}
}
