package jsonx

import (
	"strings"
	"testing"
)

// walk reads the next value with an Iter, descending into every object,
// and writes what it saw.
func walk(it *Iter, sb *strings.Builder) {
	switch it.Peek() {
	case '{':
		it.Object()
		sb.WriteByte('{')
		for {
			k, ok := it.Key()
			if !ok {
				break
			}
			sb.WriteString(string(k) + ":")
			walk(it, sb)
			sb.WriteByte(';')
		}
		sb.WriteByte('}')
	default:
		sb.Write(it.Skip())
	}
}

func TestIterWalksAndRejects(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":[true,{"c":"d"},[]],"e":{}}`: `{a:1;b:[true,{"c":"d"},[]];e:{};}`,
		` { "a" : [ 1 , 2 ] , "b" : { } } `:      `{a:[ 1 , 2 ];b:{};}`,
		`{"x":{"y":{}},"z":{"w":1}}`:             `{x:{y:{};};z:{w:1;};}`,
	} {
		var it Iter
		it.Reset([]byte(in))
		var sb strings.Builder
		walk(&it, &sb)
		if it.Err() != nil || sb.String() != want {
			t.Errorf("%s: walked %s (err %v), want %s", in, sb.String(), it.Err(), want)
		}
	}
	// What ObjectEach rejects, the Iter rejects too: a missing comma after
	// a nested value included.
	for _, in := range []string{`{"a":1 "b":2}`, `{"a":{} "b":2}`, `{"a":{"b":1} "c":2}`, `{"a":1,}`, `{"content":"""":0}`, `{"a":1`} {
		var it Iter
		it.Reset([]byte(in))
		var sb strings.Builder
		walk(&it, &sb)
		if it.Err() == nil {
			t.Errorf("%s: walked %s without an error", in, sb.String())
		}
	}
}
