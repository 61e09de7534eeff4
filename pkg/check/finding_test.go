package check

import "testing"

// The schema fields of a Finding are rendered only when set, so check's
// own findings keep their documented shape.
func TestFindingJSONSchemaFields(t *testing.T) {
	f := Finding{Rule: RuleSeqGap, Severity: Error, I: 3, T: 10, Conn: 1, Message: "m"}
	if got, want := string(f.AppendJSON(nil)), `{"rule":"seq-gap","severity":"error","i":3,"t":10,"conn":1,"message":"m"}`; got != want {
		t.Fatalf("check finding:\n got %s\nwant %s", got, want)
	}
	f = Finding{Rule: "schema-violation", Severity: Error, I: 3, T: 10, Conn: 1, RunID: "r", Event: "chat",
		Schema: "ChatEvent", Pointer: "/payload/seq", Keyword: "type", Expected: "integer", Actual: `"5"`, Message: "m"}
	want := `{"rule":"schema-violation","severity":"error","i":3,"t":10,"conn":1,"runId":"r","event":"chat","schema":"ChatEvent","pointer":"/payload/seq","keyword":"type","expected":"integer","actual":"\"5\"","message":"m"}`
	if got := string(f.AppendJSON(nil)); got != want {
		t.Fatalf("schema finding:\n got %s\nwant %s", got, want)
	}
	// A violation of the whole frame has the empty pointer, rendered.
	f = Finding{Rule: "schema-violation", Severity: Error, Method: "connect", Schema: "(root)", Message: "m"}
	want = `{"rule":"schema-violation","severity":"error","i":0,"t":0,"method":"connect","schema":"(root)","pointer":"","message":"m"}`
	if got := string(f.AppendJSON(nil)); got != want {
		t.Fatalf("root finding:\n got %s\nwant %s", got, want)
	}
}
