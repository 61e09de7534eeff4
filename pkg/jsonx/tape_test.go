package jsonx

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// walkResult is what a validating, indexing walk of a line reports.
type walkResult struct {
	end     int
	err     error
	members []string // key=value, in order (compared only on valid lines)
	index   Index
}

func (r walkResult) String() string {
	return fmt.Sprintf("end %d, err %v, members %q, exact %v", r.end, r.err, r.members, r.index.Exact)
}

// stopAfter is how many members a walk's fn accepts before it stops the
// walk; -1 for all of them.
func walkBytes(line []byte, stopAfter int) walkResult {
	var r walkResult
	r.index.Reset()
	r.end, r.err = objectEachEndIdx(line, "frame", &indexer{s: testSchema, m: &r.index}, r.collect(stopAfter))
	return r
}

// vectorCode sets whether stage one uses the vector code, until restore.
func vectorCode(on bool) (restore func()) {
	saved := useTape
	useTape = on
	return func() { useTape = saved }
}

// walkTape walks line by tokens, classified by the vector code when vector
// is set; ok is false when stage one left the line to the byte walk.
func walkTape(line []byte, stopAfter int, vector bool) (r walkResult, ok bool) {
	defer vectorCode(vector)()
	r.end, r.err, ok = objectEachEndTape(line, "frame", testSchema, &r.index, r.collect(stopAfter))
	return r, ok
}

func (r *walkResult) collect(stopAfter int) func(k, v []byte) bool {
	return func(k, v []byte) bool {
		r.members = append(r.members, string(k)+"="+string(v))
		return stopAfter < 0 || len(r.members) < stopAfter
	}
}

// sameWalk fails t unless the token walk of line, where it does not leave
// the line to the byte walk, agrees with the byte walk: on the line's
// validity, its end and, for a valid line, every member handed out and
// the index.
func sameWalk(t *testing.T, line []byte, stopAfter int) {
	t.Helper()
	want := walkBytes(line, stopAfter)
	classifiers := []bool{false}
	if useTape {
		classifiers = append(classifiers, true)
	}
	for _, vector := range classifiers {
		got, ok := walkTape(line, stopAfter, vector)
		if !ok {
			// Giving up is always safe (the byte walk reads the line),
			// but a valid line read whole should never need it.
			if stopAfter < 0 && Valid(line) {
				t.Fatalf("vector %v: stage one gave up on a valid line (%v): %q", vector, want, line)
			}
			continue
		}
		// The token walk tells an ASCII line and one without a backslash
		// (the byte walk never does).
		if ascii := got.err == nil && !slices.ContainsFunc(line, func(c byte) bool { return c >= 0x80 }); got.index.ASCII != ascii {
			t.Fatalf("vector %v: the token walk says ASCII %v, want %v: %q", vector, got.index.ASCII, ascii, line)
		}
		if plain := got.err == nil && !slices.Contains(line, '\\'); got.index.Plain != plain {
			t.Fatalf("vector %v: the token walk says Plain %v, want %v: %q", vector, got.index.Plain, plain, line)
		}
		got.index.ASCII, got.index.Plain = false, false
		if (got.err == nil) != (want.err == nil) || (want.err == nil && (got.end != want.end ||
			strings.Join(got.members, "\n") != strings.Join(want.members, "\n") || got.index != want.index)) {
			t.Fatalf("vector %v, stop after %d: the token walk gives\n%v\nthe byte walk\n%v\nline %q", vector, stopAfter, got, want, line)
		}
	}
}

// TestStageOneVectorMatchesBytes holds the vector code's tokens to the
// Go code's, a byte at a time, on generated lines whose strings, escapes
// and runs of backslashes fall across the blocks' edges.
func TestStageOneVectorMatchesBytes(t *testing.T) {
	if !useTape {
		t.Skip("no vector code on this machine: stage one is the Go code")
	}
	build := func(line []byte, vector bool) (tape, bool) {
		defer vectorCode(vector)()
		var tp tape
		ok := tp.build(line)
		return tp, ok
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Strings of plain bytes, escapes of two and of six bytes and runs of
	// backslashes, between operators, numbers and white space; now and
	// then a byte anywhere that may make the line one to give up.
	inside := []string{"a", "bc", "é", " ", "{", ":", ",", `\\`, `\"`, `\n`, `\/`, `\u00e9`, `\\\\\\`, `\\\"`}
	bad := []string{`\\\o`, `\u12G4`} // escapes stage one gives up at
	outside := []string{"{", "}", "[", "]", ":", ",", " ", "\n", "1", "-2.5e3", "true", "null", "x"}
	line := make([]byte, 0, 400)
	built := 0
	for range 200000 {
		line = line[:0]
		for len(line) < 300 && rng.IntN(40) != 0 {
			if rng.IntN(2) == 0 {
				line = append(line, '"')
				for range rng.IntN(12) {
					if rng.IntN(60) == 0 {
						line = append(line, bad[rng.IntN(len(bad))]...)
					} else {
						line = append(line, inside[rng.IntN(len(inside))]...)
					}
				}
				if rng.IntN(30) != 0 {
					line = append(line, '"')
				}
			} else {
				line = append(line, outside[rng.IntN(len(outside))]...)
			}
			if rng.IntN(50) == 0 {
				line = append(line, byte(rng.IntN(256)))
			}
		}
		got, okV := build(line, true)
		want, okG := build(line, false)
		if okV != okG || okV && (!slices.Equal(got.toks, want.toks) || got.esc != want.esc || got.ascii != want.ascii) {
			t.Fatalf("line %q:\nvector %v %v esc %v ascii %v\nbytes  %v %v esc %v ascii %v", line, okV, got.toks, got.esc, got.ascii, okG, want.toks, want.esc, want.ascii)
		}
		if okV {
			built++
		}
	}
	t.Logf("%d of 200,000 lines built", built)
	if built < 50000 {
		t.Fatalf("only %d of 200,000 lines built: the test reads too few", built)
	}
}

// randomJSON writes a random value to b: strings long and short, with
// escapes and runs of backslashes, numbers, literals, nesting, and white
// space, so that every kind of token meets every place in a block.
func randomJSON(b *bytes.Buffer, rng *rand.Rand, depth int) {
	ws := func() {
		if rng.IntN(6) == 0 {
			b.WriteString([]string{" ", "\n", "\t ", "\r\n  "}[rng.IntN(4)])
		}
	}
	ws()
	switch k := rng.IntN(10); {
	case k < 3 && depth < 6:
		b.WriteByte('{')
		n := rng.IntN(5)
		keys := []string{"type", "id", "payload", "runId", "data", "text", "n", "message", "error", "code", "frame", `ty\u0070e`, `i\"d`, "x"}
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			b.WriteString(`"` + keys[rng.IntN(len(keys))] + `"`) // JSON already
			ws()
			b.WriteByte(':')
			randomJSON(b, rng, depth+1)
		}
		ws()
		b.WriteByte('}')
	case k < 5 && depth < 6:
		b.WriteByte('[')
		for i := range rng.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(b, rng, depth+1)
		}
		b.WriteByte(']')
	case k < 8:
		b.WriteByte('"')
		for range rng.IntN(90) {
			switch r := rng.IntN(20); {
			case r == 0:
				b.WriteString(strings.Repeat(`\\`, rng.IntN(4)))
			case r == 1:
				b.WriteString([]string{`\"`, `\n`, `\u00e9`, `\/`, `\t`}[rng.IntN(5)])
			case r == 2:
				b.WriteString("é{}[]:,")
			default:
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
		}
		b.WriteByte('"')
	case k == 8:
		b.WriteString([]string{"0", "-1", "1795317864577", "3.25", "1e9", "-0.5E-3", "12"}[rng.IntN(7)])
	default:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	}
	ws()
}

func TestTapeMatchesByteWalkOnRandomLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	rounds := 20000
	if testing.Short() {
		rounds = 3000
	}
	for round := range rounds {
		b.Reset()
		b.WriteString(`{"t":1,`)
		b.WriteString(strings.Repeat(" ", rng.IntN(64)))
		b.WriteString(`"frame":`)
		randomJSON(&b, rng, 0)
		b.WriteString(`,"after":`)
		randomJSON(&b, rng, 4)
		b.WriteString("}")
		line := b.Bytes()
		stop := -1
		if round%7 == 0 {
			stop = rng.IntN(4)
		}
		sameWalk(t, line, stop)
		// The same line mutated: a byte changed, dropped or doubled.
		for range 4 {
			m := bytes.Clone(line)
			i := rng.IntN(len(m))
			switch rng.IntN(3) {
			case 0:
				alphabet := []byte("\"\\{}[],: \x01x0e-")
				m[i] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				m = append(m[:i], m[i+1:]...)
			default:
				m = append(m[:i+1], m[i:]...)
			}
			sameWalk(t, m, stop)
		}
	}
}

func TestTapeEdges(t *testing.T) {
	long := strings.Repeat("a", 61)
	for _, line := range []string{
		`{}`, ` { } `, `{"frame":{}}`, `{"frame":1x}`, `{"frame":truex}`, `{"frame":[1x]}`, `{"frame":"a"x}`,
		`{"frame":"` + long + `\"","x":1}`, // an escaped quote across a block's edge
		`{"frame":"` + long + `\\","x":1}`,
		`{"frame":"` + long + `ab\\\"","x":1}`,
		`{"frame":"` + long + `a\u00e9\u12G4"}`,
		`{"frame":"` + strings.Repeat("a", 62) + `\`,
		`{"frame":"` + long + "\x01" + `"}`,
		`{"frame":"open}`, `{"frame":1}"`, `{"frame":1}x`, `{"frame":\"x"}`, `{"a":1\"b":2}`,
		`{"frame":{"type":"a","type":"b"}}`, `{"frame":{"ty\u0070e":"a"}}`,
		`{"frame":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
		"{\"frame\":\x00}", "{\"frame\":1\x00}", `{"frame":-}`, `{"frame":01}`, `{"frame":1.}`,
		`{"frame":{"payload":{"data":{"text":"` + strings.Repeat("é", 3000) + `"}}}}`,
		`{"frame":{"payload":{"data":{"text":"` + strings.Repeat(`\n`, 3000) + `"}}},"t":2}`,
	} {
		for stop := -1; stop < 3; stop++ {
			sameWalk(t, []byte(line), stop)
		}
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	sameWalk(t, []byte(`{"frame":`+deep+`}`), -1)
}

// TestManyTokensWalkedByBytes: a line of more than maxTapeTokens tokens
// is left to the byte walk (its tokens could take four times its length),
// and reads the same; a long line of few tokens is walked by them.
func TestManyTokensWalkedByBytes(t *testing.T) {
	ones := strings.Repeat("1,", maxTapeTokens) // a token every two bytes
	line := []byte(`{"t":1,"frame":{"type":"event","payload":{"data":{"text":[` + ones + `1]}}}}`)
	var idx Index
	end, err := ObjectEachEndIndexed(line, "frame", testSchema, &idx, func(k, v []byte) bool { return true })
	want := walkBytes(line, -1)
	if err != nil || end != len(line) || idx != want.index || !idx.Exact { // by bytes: ASCII unknown
		t.Fatalf("end %d of %d, err %v, index %+v (the byte walk: %+v)", end, len(line), err, idx, want.index)
	}
	buf := tapePool.Get().(*[]uint32)
	defer tapePool.Put(buf)
	if c := cap(*buf); c > 2*maxTapeTokens {
		t.Fatalf("a pooled tape of %d tokens after a line of %d bytes", c, len(line))
	}
	text := strings.Repeat("a few words, \\\"quoted\\\" and \\n. ", 2*maxTapeTokens/32)
	sameWalk(t, []byte(`{"t":1,"frame":{"type":"event","payload":{"data":{"text":"`+text+`"}}}}`), -1)
}

// TestTapeMatchesByteWalkOnCaptures walks every line of the repository's
// captures both ways.
func TestTapeMatchesByteWalkOnCaptures(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/*/*.jsonl*")
	more, _ := filepath.Glob("../../fixtures/*.jsonl*")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("found %d captures under fixtures/", len(files))
	}
	lines := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".zst") {
			d, _ := zstd.NewReader(bytes.NewReader(data))
			data, _ = io.ReadAll(d) // a capture cut short is read as far as it goes
			d.Close()
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if line = TrimSpace(line); len(line) > 0 {
				sameWalk(t, line, -1)
				lines++
			}
		}
	}
	t.Logf("%d lines of %d captures", lines, len(files))
}

func FuzzTapeMatchesByteWalk(f *testing.F) {
	for _, s := range []string{`{"frame":{"type":"event","payload":{"runId":"r","data":{"text":"a\"b"}}}}`,
		`{"t":1,"frame":[1,2,{"a":null}]}`, `{"frame":"` + strings.Repeat(`\\`, 40) + `"}`} {
		f.Add([]byte(s), int8(-1))
	}
	f.Fuzz(func(t *testing.T, line []byte, stop int8) {
		sameWalk(t, line, int(stop))
	})
}
