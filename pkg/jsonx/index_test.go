package jsonx

import (
	"encoding/json"
	"strings"
	"testing"
)

var testSchema = NewSchema("type", "id", "payload.runId", "payload.data.text", "payload.data.n", "payload.message", "error.code")

// getScanned reads path from v as a walk does: Get, level by level, the
// last duplicate winning, escapes decoded.
func getScanned(v []byte, path string) ([]byte, bool) {
	for _, k := range strings.Split(path, ".") {
		var ok bool
		if v, ok = Get(v, k); !ok {
			return nil, false
		}
	}
	return v, true
}

// checkIndex indexes v (inside an envelope, as the reader does) and holds
// every path of the schema to Get's reading when the index is Exact.
func checkIndex(t *testing.T, v string) (exact bool) {
	t.Helper()
	line := []byte(`{"pad":[1,"x"], "frame" : ` + v + ` ,"after":{"k":"v"}}`)
	var idx Index
	var frame []byte
	end, err := ObjectEachEndIndexed(line, "frame", testSchema, &idx, func(k, val []byte) bool {
		if string(k) == "frame" {
			frame = val
		}
		return true
	})
	if err != nil || end != len(line) {
		t.Fatalf("%s: end %d of %d, err %v", v, end, len(line), err)
	}
	var alone Index
	if !IndexValue([]byte(" "+v+"\n"), testSchema, &alone) || alone.Exact != idx.Exact {
		t.Fatalf("%s: IndexValue gives %+v, the envelope %+v", v, alone, idx)
	}
	if !idx.Exact {
		return false
	}
	for _, path := range testSchema.paths {
		got := idx.Get(frame, testSchema.Slot(path))
		want, ok := getScanned(frame, path)
		if string(got) != string(want) || (got != nil) != ok {
			t.Errorf("%s: %s is %q, Get reads %q (%v)", v, path, got, want, ok)
		}
	}
	return true
}

func TestIndexReadsWhatGetReads(t *testing.T) {
	for _, c := range []struct {
		v     string
		exact bool
	}{
		{`{}`, true},
		{`{"type":"event","id":7,"payload":{"runId":"r1","data":{"text":"hi \"x\"","n":[1,{"text":2}]},"message":{"text":"no"}}}`, true},
		{` { "type" : "res" , "error" : { "code" : "E" } , "payload" : [ {"runId":"not"} ] } `, true},
		{`{"payload":{"data":"str","runId":{"a":1}},"id":null}`, true},
		{`{"payload":{"runId":"a"},"payload":{"runId":"b"}}`, false}, // repeated
		{`{"payload":{"runId":"a","runId":"b"}}`, false},             // repeated within
		{`{"t\u0079pe":"event"}`, false},                             // escaped at a level walked
		{`{"other":{"t\u0079pe":"x"},"type":"event"}`, true},         // escaped where nothing is read
		{`{"payload":{"message":{"runId":"x","runId":"y"}}}`, true},  // repeated where nothing is read
		{`["array"]`, false},
		{`"string"`, false},
	} {
		if got := checkIndex(t, c.v); got != c.exact {
			t.Errorf("%s: exact %v, want %v", c.v, got, c.exact)
		}
	}
}

// FuzzIndex: on any valid JSON the index, when Exact, reads what Get
// reads; invalid JSON is refused as Valid refuses it, and nothing panics.
func FuzzIndex(f *testing.F) {
	for _, s := range []string{
		`{"type":"event","payload":{"runId":"r","data":{"text":"t"}}}`,
		`{"error":{"code":1},"id":"x"}`, `{"payload":{"data":{"n":[{"a":"\""}]}}}`, `{"a":1`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var idx Index
		ok := IndexValue(data, testSchema, &idx)
		if ok != Valid(data) {
			t.Fatalf("%q: IndexValue %v, Valid %v", data, ok, Valid(data))
		}
		if ok {
			checkIndex(t, string(TrimSpace(data)))
		}
		// Any index on any bytes: Get never panics.
		for s := range MaxSlots {
			idx.Get(data, s)
		}
	})
}

func TestSchemaSlots(t *testing.T) {
	s := NewSchema("a", "b.c", "b.d.e")
	for _, p := range []string{"a", "b", "b.c", "b.d", "b.d.e"} {
		s.Slot(p) // panics when missing
	}
	defer func() {
		if recover() == nil {
			t.Error("a schema of too many paths was built")
		}
	}()
	var many []string
	for i := range MaxSlots + 1 {
		many = append(many, strings.Repeat("k", i+1))
	}
	NewSchema(many...)
}

// Keys of every length up to three words, with a byte that ends or
// interrupts them at every place in and around the word the walk reads a
// key's end from at once: IndexValue refuses what encoding/json refuses,
// and indexes what Get reads.
func TestIndexKeysEveryPosition(t *testing.T) {
	for n := 0; n <= 24; n++ {
		for _, ins := range []string{`\"`, `\\`, `\n`, `\u0041`, `\x`, "\x01", "\x1f", `"`, "é", ":", "a"} {
			for at := 0; at <= n; at++ {
				key := strings.Repeat("k", at) + ins + strings.Repeat("y", n-at)
				for _, doc := range []string{
					`{"` + key + `":1,"type":"event"}`,
					`{"payload":{"` + key + `":{"x":1},"runId":"r"}}`,
					`{"type":"e","` + key + `":"v"}`,
				} {
					var idx Index
					ok := IndexValue([]byte(doc), testSchema, &idx)
					if want := json.Valid([]byte(doc)); ok != want {
						t.Fatalf("IndexValue(%q) = %v, encoding/json says %v", doc, ok, want)
					}
					if ok {
						checkIndex(t, doc)
					}
				}
			}
		}
	}
	// Schema keys themselves, found from the word.
	checkIndex(t, `{"id":1,"type":"x","error":{"code":2},"payload":{"message":{},"runId":"r","data":{"n":3,"text":"t"}}}`)
}
