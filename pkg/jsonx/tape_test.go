package jsonx

import (
	"strings"
	"testing"
)

// indexed validates `{"pad":…,"frame":v}` the way the capture reader does
// and returns v as the envelope holds it and its tape.
func indexed(t testing.TB, v string) ([]byte, Tape) {
	t.Helper()
	line := []byte(`{"pad":[1,"x"], "frame" : ` + v + ` ,"after":{"k":"v"}}`)
	var tape Tape
	var frame []byte
	end, err := ObjectEachEndIndexing(line, "frame", &tape, func(k, val []byte) bool {
		if string(k) == "frame" {
			frame = val
		}
		return true
	})
	if err != nil || end != len(line) {
		t.Fatalf("%s: end %d of %d, err %v", v, end, len(line), err)
	}
	return frame, tape
}

// walkAll walks data with and without the tape and returns both readings
// and how many tape entries the taped walk used.
func walkAll(data []byte, tape Tape) (scanned, taped string, used int, tapeKept bool) {
	var a, b Iter
	var sa, sb strings.Builder
	a.Reset(data)
	walk(&a, &sa)
	b.ResetTape(data, tape)
	walk(&b, &sb)
	if a.Err() != nil {
		sa.WriteString(" error")
	}
	if b.Err() != nil {
		sb.WriteString(" error")
	}
	return sa.String(), sb.String(), b.t, b.tape != nil
}

func TestTapeWalkIsTheScan(t *testing.T) {
	for _, v := range []string{
		`{}`,
		`{"a":1}`,
		`{"type":"event","event":"chat","payload":{"runId":"r1","state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"hi \"there\" \\"}]}},"seq":3}`,
		`{ "a" : { "b" : [ ] , "c" : { } } , "d" : "e\\\"" , "f" : [ { "g" : "h" } , "i" ] }`,
		`{"nested":{"x":{"y":{"z":[[["deep"]]]}}},"after":true}`,
		`{"esc\"key":"v","k\\":"w","u":"\u00e9\ud83d\ude00"}`,
		`{"empty":"","n":-1.5e3,"t":true,"f":false,"z":null}`,
		`["array","frame",{"a":1}]`,
		`"just a string"`,
		`12`,
	} {
		frame, tape := indexed(t, v)
		if string(frame) != v {
			t.Fatalf("frame %q, want %q", frame, v)
		}
		scanned, taped, used, kept := walkAll(frame, tape)
		if taped != scanned {
			t.Errorf("%s:\n taped   %s\n scanned %s", v, taped, scanned)
		}
		if !kept && len(tape) > 0 {
			t.Errorf("%s: the walk dropped its own tape %v", v, tape)
		}
		// walk descends into every object and skips the rest, so a full
		// walk reads the tape to its end, never past it.
		if used != len(tape) && (v[0] == '{') {
			t.Errorf("%s: the walk used %d of %d tape entries", v, used, len(tape))
		}
	}
}

func TestTapeIsLeftEmptyWithoutTheMember(t *testing.T) {
	tape := Tape{7, 7, 7}
	if _, err := ObjectEachEndIndexing([]byte(`{"a":{"b":"c"}}`), "frame", &tape, func(k, v []byte) bool { return true }); err != nil || len(tape) != 0 {
		t.Fatalf("tape %v, err %v", tape, err)
	}
	// The last duplicate is indexed, as JSON.parse keeps it.
	if _, err := ObjectEachEndIndexing([]byte(`{"frame":{"a":"b"},"frame":"s"}`), "frame", &tape, func(k, v []byte) bool { return true }); err != nil || len(tape) != 1 || tape[0] != 3 {
		t.Fatalf("tape %v, err %v", tape, err)
	}
	// A nil tape indexes nothing and validates all the same.
	if _, err := ObjectEachEndIndexing([]byte(`{"frame":{"a":"b}}`), "frame", nil, func(k, v []byte) bool { return true }); err == nil {
		t.Fatal("invalid JSON passed")
	}
}

// A tape that does not belong to the bytes is dropped as soon as it does
// not fit them; the walk goes on scanning and reads what a scan reads.
func TestWrongTapeIsDropped(t *testing.T) {
	frame, _ := indexed(t, `{"a":"bb","c":{"d":[1,2]},"e":"f"}`)
	want, _, _, _ := walkAll(frame, nil)
	for _, tape := range []Tape{
		{0, 0, 0},
		{1 << 31, 5, 9},
		{uint32(len(frame)), 0},
		{uint32(len(frame)), 99},
		{uint32(len(frame)), 2, 4, 8, 100, 3},
	} {
		scanned, taped, _, kept := walkAll(frame, tape)
		if scanned != want || taped != want || kept {
			t.Errorf("tape %v: read %s (tape kept: %v), want %s", tape, taped, kept, want)
		}
	}
}

// FuzzTape: on valid JSON the taped walk reads exactly what the scan
// reads; any tape on any bytes never panics.
func FuzzTape(f *testing.F) {
	for _, s := range []string{`{"a":{"b":["c",{"d":"e"}]},"f":"g"}`, `{"x":"\"","y":{}}`, `[1,{"a":[]}]`, `{"a":1`} {
		f.Add([]byte(s), []byte{3, 0, 0, 0, 9, 0, 0, 0})
	}
	f.Fuzz(func(t *testing.T, data, raw []byte) {
		if Valid(data) {
			v := string(TrimSpace(data))
			frame, tape := indexed(t, v)
			if scanned, taped, _, _ := walkAll(frame, tape); taped != scanned {
				t.Fatalf("%s: taped %s, scanned %s", v, taped, scanned)
			}
		}
		var junk Tape
		for i := 0; i+4 <= len(raw); i += 4 {
			junk = append(junk, uint32(raw[i])|uint32(raw[i+1])<<8|uint32(raw[i+2])<<16|uint32(raw[i+3])<<24)
		}
		walkAll(data, junk)
	})
}
