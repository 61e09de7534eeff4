package message

import "testing"

// A typical streamed assistant delta: ~500 bytes, one text block, a
// closed thinking block and a reply marker.
var benchMsg = []byte(`{"role":"assistant","content":[{"type":"text","text":"<think>The user wants the disk usage of /var; du -sh is enough.</think>[[reply_to_current]] Here is the disk usage of ` + "`/var`" + `, sorted by size:\n\n- /var/lib: 3.2G\n- /var/log: 812M\n- /var/cache: 240M\n\nThe logs are larger than usual; ` + "`journalctl --vacuum-size=200M`" + ` would reclaim most of that space. Want me to run it?"}],"timestamp":1767225600000,"model":"gpt-5","usage":{"input_tokens":1200,"output_tokens":85}}`)

func BenchmarkText(b *testing.B) {
	b.SetBytes(int64(len(benchMsg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Text(benchMsg); !ok {
			b.Fatal("no text")
		}
	}
}

func BenchmarkThinking(b *testing.B) {
	b.SetBytes(int64(len(benchMsg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Thinking(benchMsg); !ok {
			b.Fatal("no thinking")
		}
	}
}

func TestBenchMessage(t *testing.T) {
	if n := len(benchMsg); n < 400 || n > 600 {
		t.Errorf("bench message is %d bytes, want about 500", n)
	}
	got, _ := Text(benchMsg)
	if len(got) == 0 || got[0] != 'H' {
		t.Errorf("Text = %q", got)
	}
	th, _ := Thinking(benchMsg)
	if th != "The user wants the disk usage of /var; du -sh is enough." {
		t.Errorf("Thinking = %q", th)
	}
}
