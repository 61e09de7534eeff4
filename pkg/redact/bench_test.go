package redact

import (
	"fmt"
	"strings"
	"testing"
)

// toolWithSession is a ~5.6 KB tool event carrying a merged session row,
// the largest frame of a normal run.
var toolWithSession = func() string {
	var b strings.Builder
	b.WriteString(`{"type":"event","event":"agent","payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"call_1","args":{"command":"ls -la"}},"sessionKey":"agent:main:main","seq":7,"ts":1795317837000,"session":{`)
	for i := 0; b.Len() < 5600; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"field%02d":"value of field %d for the session row","count%02d":%d,"inputTokens%d":%d`, i, i, i, i*37, i, i*1000)
	}
	b.WriteString(`}}}`)
	return b.String()
}()

var benchFrames = []struct{ name, frame string }{
	{"chat-delta", chatDelta},
	{"agent-assistant", agentText},
	{"tick", tick},
	{"tool-5.6KB", toolWithSession},
	{"usage", agentUse},
	{"connect", connectV4},
	{"hello-ok", helloV4},
}

func BenchmarkFrame(b *testing.B) {
	for _, content := range []bool{false, true} {
		for _, f := range benchFrames {
			mode := "credentials"
			if content {
				mode = "content"
			}
			b.Run(mode+"/"+f.name, func(b *testing.B) {
				r := New(Options{Content: content, Salt: []byte("bench")})
				in := []byte(f.frame)
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					r.Frame("in", in)
				}
			})
		}
	}
}

// BenchmarkStream runs a realistic mix: mostly agent/chat deltas, some
// lifecycle, usage and tool frames, a tick; no credentials.
func BenchmarkStream(b *testing.B) {
	var mix [][]byte
	for i := 0; i < 40; i++ {
		mix = append(mix, []byte(agentText), []byte(chatDelta))
	}
	for i := 0; i < 5; i++ {
		mix = append(mix, []byte(lifecycle), []byte(agentUse), []byte(sessRow), []byte(toolStart))
	}
	mix = append(mix, []byte(toolWithSession), []byte(tick), []byte(heartbeat), []byte(chatFinal))
	r := New(Options{})
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, f := range mix {
			r.Frame("in", f)
		}
		n += len(mix)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "frames/s")
}
