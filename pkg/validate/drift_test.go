package validate

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/capture"
)

// A field the schema does not declare is one finding per definition and
// pointer, at the end, with its count, its first record and the gateway's
// release; the summary names the schema's version and the releases, and
// says the schema is older. PerFrame keeps a finding per frame.
func TestDriftOncePerField(t *testing.T) {
	s := embedded(t)
	agent := func(i int) string {
		return `{"type":"event","event":"agent","payload":{"runId":"r","seq":` + string(rune('0'+i)) + `,"stream":"lifecycle","ts":1,"data":{"phase":"start"},"agentId":"main","sessionKey":"agent:main:main"}}`
	}
	recs := []*capture.Record{{T: 1000, Conn: 1, Mark: capture.MarkHello, Protocol: 4, Server: "2026.9.6"}}
	recs = append(recs, frames(1, agent(1), agent(2), agent(3))...)
	fs, sum := run(t, s, Options{}, recs)
	if len(fs) != 2 {
		t.Fatalf("want one finding per field:\n%s", dump(fs))
	}
	f := fs[0]
	if f.Rule != RuleExtraField || f.Pointer != "/payload/agentId" || f.Count != 3 || f.I != 1 ||
		!strings.Contains(f.Message, "in 3 frames, records 1 to 3") || !strings.Contains(f.Message, "gateway 2026.9.6") ||
		!strings.Contains(f.Message, "the schema (2026.9.1) is older than the gateway") {
		t.Errorf("drift finding: %s", dump(fs[:1]))
	}
	if fs[1].Pointer != "/payload/sessionKey" || fs[1].Count != 3 {
		t.Errorf("second field: %s", dump(fs[1:]))
	}
	if sum.SchemaVersion != "2026.9.1" || len(sum.Gateways) != 1 || sum.Gateways[0] != "2026.9.6" || !sum.SchemaOlder || sum.DriftFrames != 6 || sum.Warnings != 2 {
		t.Errorf("summary %+v", sum)
	}
	fs, sum = run(t, s, Options{PerFrame: true}, recs)
	if len(fs) != 6 || sum.Warnings != 6 || fs[0].Count != 0 {
		t.Errorf("per frame:\n%s", dump(fs))
	}
	// The schema is not older than a gateway it matches.
	recs[0].Server = "2026.9.1"
	if _, sum := run(t, s, Options{}, recs); sum.SchemaOlder {
		t.Error("2026.9.1 against the 2026.9.1 schema: not older")
	}
}
