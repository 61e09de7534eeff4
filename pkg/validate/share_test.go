package validate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// share keeps the document as it was, value for value, while its equal
// objects become one: the protocol schema's 28,000 objects come to under
// 4,000, and sharing twice gives the same shape.
func TestShareKeepsTheDocument(t *testing.T) {
	decode := func() any {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(snapshotJSON))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	fresh, shared, again := decode(), share(decode()), share(decode())
	if !reflect.DeepEqual(fresh, shared) {
		t.Fatal("the shared document differs from the one decoded")
	}
	before, after := objects(fresh), objects(shared)
	if after*5 > before {
		t.Errorf("%d objects shared into %d: expected far fewer", before, after)
	}
	if n := objects(again); n != after {
		t.Errorf("sharing twice gave %d and %d objects", after, n)
	}
	// Equal objects at different places, not just equal leaves.
	doc := share(map[string]any{"a": map[string]any{"x": []any{"1", true}}, "b": map[string]any{"x": []any{"1", true}}, "c": map[string]any{"x": []any{"1", false}}})
	m := doc.(map[string]any)
	if reflect.ValueOf(m["a"]).UnsafePointer() != reflect.ValueOf(m["b"]).UnsafePointer() || reflect.ValueOf(m["a"]).UnsafePointer() == reflect.ValueOf(m["c"]).UnsafePointer() {
		t.Error("equal objects were not shared, or unequal ones were")
	}
}

// objects counts the distinct objects of a document.
func objects(doc any) int {
	seen := map[any]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			p := reflect.ValueOf(x).UnsafePointer()
			if seen[p] {
				return
			}
			seen[p] = true
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	return len(seen)
}

// Once the embedded schema is parsed its pages are given back; its bytes
// read the same afterwards.
func TestReleaseKeepsTheBytes(t *testing.T) {
	if _, err := Embedded(); err != nil {
		t.Fatal(err)
	}
	release(snapshotJSON)
	sum := sha256.Sum256(snapshotJSON)
	if got, want := hex.EncodeToString(sum[:]), versionField(snapshotVersion, "sha256"); got != want {
		t.Fatalf("after release the snapshot's sha256 is %s, VERSION says %s", got, want)
	}
}
