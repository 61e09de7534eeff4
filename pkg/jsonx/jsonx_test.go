package jsonx

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e10`, `true`, `false`, `null`,
		`{"a":1,"b":[1,2,{"c":"d"}]}`, ` {"a" : "b" } `, `"\u00e9\n\"\\"`,
		`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `nul`, `"abc`, `{"a"}`, `{"a":}`,
		`{a:1}`, `"\x"`, "\"a\tb\"", `[1 2]`, `{"a":1 "b":2}`, `{} {}`, ``, ` `, `"\u12G4"`,
		`[[[[[]]]]]`, `{"a":{"b":{"c":[null,true,false,-1.25E-3]}}}`,
	}
	for _, c := range cases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+5) + strings.Repeat("]", maxDepth+5)
	if Valid([]byte(deep)) {
		t.Fatal("nesting beyond maxDepth should be rejected, not recursed into")
	}
	ok := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if !Valid([]byte(ok)) {
		t.Fatal("moderate nesting rejected")
	}
}

func TestGetAndTypes(t *testing.T) {
	obj := []byte(`{"type":"event","seq":42,"payload":{"runId":"r1","n":1.5,"big":1e300,"s":"a\"b\u00e9\ud83d\ude00","arr":[1,2]},"dup":1,"dup":2,"k\u0065y":"escaped"}`)
	if v, ok := GetStr(obj, "type"); !ok || v != "event" {
		t.Errorf("type = %q %v", v, ok)
	}
	if n, ok := GetInt(obj, "seq"); !ok || n != 42 {
		t.Errorf("seq = %d %v", n, ok)
	}
	if v, ok := GetPath(obj, "payload", "runId"); !ok || string(v) != `"r1"` {
		t.Errorf("payload.runId = %s %v", v, ok)
	}
	p, _ := Get(obj, "payload")
	if _, ok := GetInt(p, "n"); ok {
		t.Error("1.5 is not an integer")
	}
	if _, ok := GetInt(p, "big"); ok {
		t.Error("1e300 does not fit int64")
	}
	if s, ok := GetStr(p, "s"); !ok || s != "a\"bé😀" {
		t.Errorf("s = %q", s)
	}
	if n, _ := GetInt(obj, "dup"); n != 2 {
		t.Errorf("duplicate keys: last should win like JSON.parse, got %d", n)
	}
	if s, ok := GetStr(obj, "key"); !ok || s != "escaped" {
		t.Errorf("escaped key lookup = %q %v", s, ok)
	}
	if _, ok := Get([]byte(`[1]`), "a"); ok {
		t.Error("Get on an array must fail")
	}
	if _, ok := GetStr(obj, "seq"); ok {
		t.Error("a number is not a string")
	}
}

func TestMembersAndStrIs(t *testing.T) {
	obj := []byte(` {"role":"user","dup":1,"text":"a","dup":2,"r\u006fle2":"x","other":[]}`)
	var out [4][]byte
	if !Members(obj, []string{"dup", "role2", "missing", "role"}, out[:]) {
		t.Fatal("Members on an object failed")
	}
	if string(out[0]) != "2" || string(out[1]) != `"x"` || out[2] != nil || string(out[3]) != `"user"` {
		t.Errorf("Members = %q", out)
	}
	if Members([]byte(`[1]`), []string{"a"}, out[:1]) || Members(nil, nil, nil) {
		t.Error("Members on a non-object must fail")
	}
	for _, c := range []struct {
		v, s string
		want bool
	}{
		{`"user"`, "user", true}, {`"us\u0065r"`, "user", true}, {`"user"`, "use", false}, {`user`, "user", false}, {`"`, "", false}, {`""`, "", true},
	} {
		if got := StrIs([]byte(c.v), c.s); got != c.want {
			t.Errorf("StrIs(%s, %q) = %v", c.v, c.s, got)
		}
	}
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{`"plain"`, `"\ud83d\ude00"`, "\"\xff\xfe\"", `"\/\b\f\n\r\t"`, `"日本"`} {
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		got, ok := Str([]byte(s))
		if !ok || got != want {
			t.Errorf("Str(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestAppendStringRoundTrips(t *testing.T) {
	for _, s := range []string{"", "commitChat", "a\"b\\c", "line\nbreak\ttab", "\x00\x1f\b\f", "<tag>&", "é😀", "bad\xffutf8", "\u2028\u2029"} {
		enc := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatalf("AppendString(%q) = %s: invalid JSON: %v", s, enc, err)
		}
		want, _ := json.Marshal(s)
		if string(enc) != string(want) {
			t.Errorf("AppendString(%q) = %s, encoding/json gives %s", s, enc, want)
		}
		if Plain(s) && string(enc) != `"`+s+`"` || s == "commitChat" && !Plain(s) {
			t.Errorf("Plain(%q) = %v, but AppendString gives %s", s, Plain(s), enc)
		}
		if b := AppendBytes([]byte("x"), []byte(s)); string(b) != "x"+string(enc) {
			t.Errorf("AppendBytes(%q) = %s, AppendString gives %s", s, b[1:], enc)
		}
	}
}

func TestAppendOptStr(t *testing.T) {
	dst := []byte(`{"a":1`)
	dst = AppendOptStr(dst, "empty", "")
	dst = AppendOptStr(dst, "s", "x\"y\n")
	if got := string(append(dst, '}')); got != `{"a":1,"s":"x\"y\n"}` {
		t.Errorf("AppendOptStr = %s", got)
	}
}

func TestTruthy(t *testing.T) {
	for v, want := range map[string]bool{`{}`: true, `[]`: true, `""`: false, `"a"`: true, `0`: false, `1`: true, `-0`: false, `true`: true, `false`: false, `null`: false, ``: false} {
		if got := Truthy([]byte(v)); got != want {
			t.Errorf("Truthy(%s) = %v", v, got)
		}
	}
}

func TestArrayEachAndObjectEachStop(t *testing.T) {
	var n int
	if err := ArrayEach([]byte(`[1,"two",{"three":3},[4]]`), func(v []byte) bool { n++; return true }); err != nil || n != 4 {
		t.Fatalf("ArrayEach: n=%d err=%v", n, err)
	}
	n = 0
	_ = ObjectEach([]byte(`{"a":1,"b":2,"c":3}`), func(k, v []byte) bool { n++; return string(k) != "b" })
	if n != 2 {
		t.Fatalf("ObjectEach should stop after b, visited %d", n)
	}
	if err := ArrayEach([]byte(`[1,`), func([]byte) bool { return true }); err == nil {
		t.Fatal("truncated array must fail")
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\ud83d"`, `"a\ud83d"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`, `"a\n\u00e9\ud83d\ude00 \udc00\ud800\u0041 x\"\\"`, "\"\xff a\\n\xc3\"", `[1e5,-0.0,true]`, `123456789012345`, `1234567890123456789`, `0`, `-7`, `1.5`, `{"type":"event","payload":{"x":"y"}}`, `{`, `"\u00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
		if Valid(b) && KindOf(TrimSpace(b)) == String {
			var want string
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("encoding/json rejects valid %q: %v", b, err)
			}
			got, ok := Str(TrimSpace(b))
			if !ok {
				t.Fatalf("Str(%q) failed", b)
			}
			units := jsUnits(t, TrimSpace(b))
			if !hasLoneSurrogate(units) && got != want {
				t.Fatalf("Str(%q) = %q; encoding/json gives %q", b, got, want)
			}
			// The JavaScript rule: decoding then encoding gives what
			// JSON.stringify(JSON.parse(b)) gives, lone surrogates included.
			if enc, js := string(AppendStringMinimal(nil, got)), jsStringify(units); enc != js {
				t.Fatalf("AppendStringMinimal(Str(%q)) = %s; JavaScript gives %s", b, enc, js)
			}
		}
		if v := TrimSpace(b); Valid(b) && KindOf(v) == Number {
			want, _ := strconv.ParseFloat(string(v), 64)
			if got, ok := Num(v); !ok || got != want {
				t.Fatalf("Num(%s) = %v, %v; strconv gives %v", v, got, ok, want)
			}
		}
		if Valid(b) && KindOf(TrimSpace(b)) == Object {
			// The fast walk and the validating one agree on valid input.
			var fast, slow []string
			_ = ObjectEach(b, func(k, v []byte) bool {
				if !Valid(v) {
					t.Fatalf("member value %q of valid object is not valid", v)
				}
				fast = append(fast, string(k)+"="+string(v))
				return true
			})
			_, _ = ObjectEachEnd(b, func(k, v []byte) bool {
				slow = append(slow, string(k)+"="+string(v))
				return true
			})
			if strings.Join(fast, "\x00") != strings.Join(slow, "\x00") {
				t.Fatalf("fast walk %q differs from validating walk %q", fast, slow)
			}
		}
	})
}

func TestAppendStringMinimal(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           `"plain"`,
		"<a href>&":       `"<a href>&"`,
		"q\"b\\s":         `"q\"b\\s"`,
		"\b\f\n\r\t\x01":  `"\b\f\n\r\t\u0001"`,
		"é😀\u2028":        "\"é😀\u2028\"",
		"bad\xffbyte":     `"bad\ufffdbyte"`,
		"cut\xf0\x9f\x98": `"cut\ufffd\ufffd\ufffd"`,
	} {
		if got := string(AppendStringMinimal(nil, in)); got != want {
			t.Errorf("AppendStringMinimal(%q) = %s, want %s", in, got, want)
		}
		if got := string(AppendStringMinimal(nil, []byte(in))); got != want {
			t.Errorf("AppendStringMinimal([]byte %q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal(AppendStringMinimal(nil, in), &back); err != nil {
			t.Errorf("%q: not JSON: %v", in, err)
		}
	}
}

// jsUnits decodes a valid JSON string into UTF-16 code units, as JSON.parse
// does (raw invalid UTF-8 bytes decode to U+FFFD, one per byte, as Go's
// decoder gives them).
func jsUnits(t *testing.T, v []byte) []uint16 {
	t.Helper()
	b := v[1 : len(v)-1]
	var u []uint16
	for len(b) > 0 {
		if b[0] == '\\' {
			switch b[1] {
			case 'u':
				n, err := strconv.ParseUint(string(b[2:6]), 16, 16)
				if err != nil {
					t.Fatalf("bad escape in %q", v)
				}
				u = append(u, uint16(n))
				b = b[6:]
			default:
				u = append(u, uint16(map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[b[1]]))
				b = b[2:]
			}
			continue
		}
		r, size := utf8.DecodeRune(b)
		u = utf16.AppendRune(u, r)
		b = b[size:]
	}
	return u
}

func hasLoneSurrogate(u []uint16) bool {
	for i := 0; i < len(u); i++ {
		if utf16.IsSurrogate(rune(u[i])) {
			if u[i] < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
				i++
				continue
			}
			return true
		}
	}
	return false
}

// jsStringify is JSON.stringify of a string of code units: quote,
// backslash and control characters escaped (\b \f \n \r \t by name),
// a lone surrogate as a lower-case \uXXXX escape, everything else as is.
func jsStringify(u []uint16) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(byte(c))
		case c < 0x20:
			if e, ok := map[uint16]string{'\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}[c]; ok {
				sb.WriteString(e)
			} else {
				fmt.Fprintf(&sb, `\u%04x`, c)
			}
		case c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000:
			sb.WriteRune(utf16.DecodeRune(rune(c), rune(u[i+1])))
			i++
		case c >= 0xD800 && c < 0xE000:
			fmt.Fprintf(&sb, `\u%04x`, c)
		default:
			sb.WriteRune(rune(c))
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

func TestLoneSurrogatesSurvive(t *testing.T) {
	for in, want := range map[string]string{
		`"a\ud800"`:            `"a\ud800"`,
		`"\uDC00x"`:            `"\udc00x"`,
		`"\ud83d\ude00"`:       `"😀"`,
		`"\ude00\ud83d"`:       `"\ude00\ud83d"`,
		`"\ud83d\ud83d\ude00"`: `"\ud83d😀"`,
		`"\ud800\u0041"`:       `"\ud800A"`,
	} {
		s, ok := Str([]byte(in))
		if !ok {
			t.Fatalf("Str(%s) failed", in)
		}
		if got := string(AppendString(nil, s)); got != want {
			t.Errorf("AppendString(Str(%s)) = %s, want %s", in, got, want)
		}
	}
	// Two halves decoded apart and joined form the character, as in JS.
	hi, _ := Str([]byte(`"\ud83d"`))
	lo, _ := Str([]byte(`"\ude00"`))
	if got := string(AppendString(nil, hi+lo)); got != `"😀"` {
		t.Errorf("joined halves = %s", got)
	}
	// A raw (unescaped) surrogate encoding is invalid UTF-8, not a surrogate.
	if got := string(AppendString(nil, string(mustStr(t, "\"\xed\xa0\x80\"")))); got != "\"\ufffd\ufffd\ufffd\"" {
		t.Errorf("raw surrogate bytes = %s", got)
	}
}

func mustStr(t *testing.T, v string) string {
	s, ok := Str([]byte(v))
	if !ok {
		t.Fatalf("Str(%q) failed", v)
	}
	return s
}

// TestSkipStringEveryPosition: a quote, backslash escape, bad escape or
// control character at every offset of a string, across the eight-byte
// words skipString reads, is seen where it is.
func TestSkipStringEveryPosition(t *testing.T) {
	for n := 0; n < 40; n++ {
		for _, ins := range []string{`\"`, `\\`, `\n`, `\u00e9`, `\x`, "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xff", `"`} {
			for at := 0; at <= n; at++ {
				body := strings.Repeat("a", at) + ins + strings.Repeat("b", n-at)
				for _, doc := range []string{`"` + body + `"`, `{"k":"` + body + `","z":1}`, `["` + body + `"` + strings.Repeat(" ", n%9) + `]`} {
					if got, want := Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
						t.Fatalf("Valid(%q) = %v, encoding/json says %v", doc, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkValidFrame: validating a typical streamed frame (an agent
// assistant delta, ~500 bytes), what the capture reader does per line.
func BenchmarkValidFrame(b *testing.B) {
	frame := []byte(`{"t":1764000000123,"conn":1,"dir":"in","frame":{"type":"event","event":"agent","payload":{"runId":"2f0c6b7e-3a55-4c1e-9d1b-7a3e0b9a1c2d","seq":412,"stream":"assistant","ts":1764000000120,"data":{"text":"Here is the plan for the migration: first we copy the tables, then we switch the readers, and only then do we drop the old columns.","delta":" and only then do we drop the old columns."},"sessionKey":"agent:main:main"},"seq":90211}}`)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if !Valid(frame) {
			b.Fatal("invalid")
		}
	}
}

// Every ASCII byte, and characters of two to four bytes, at every place
// in and around the words of eight bytes the writer checks at once (in a
// string long enough for it to), is escaped as encoding/json escapes it
// (with and without its HTML escaping).
func TestAppendStringEveryByte(t *testing.T) {
	var ins []string
	for c := 0; c < utf8.RuneSelf; c++ {
		ins = append(ins, string(rune(c)))
	}
	ins = append(ins, "é", "\u2028", "\u2029", "😀", "\xff", "\xe2\x80")
	for _, in := range ins {
		for n := 1; n <= 56; n++ {
			for at := 0; at < n; at++ {
				b := bytes.Repeat([]byte("a"), n)
				s := string(b[:at]) + in + string(b[at+1:])
				want, _ := json.Marshal(s)
				if got := AppendString(nil, s); !bytes.Equal(got, want) {
					t.Fatalf("AppendString(%q) = %s, encoding/json gives %s", s, got, want)
				}
				var min bytes.Buffer
				enc := json.NewEncoder(&min)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(s)
				// JSON.stringify leaves U+2028 and U+2029 as they are.
				wantMin := strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(strings.TrimSuffix(min.String(), "\n"))
				if got := AppendStringMinimal(nil, s); string(got) != wantMin {
					t.Fatalf("AppendStringMinimal(%q) = %s, encoding/json gives %s", s, got, min.Bytes())
				}
			}
		}
	}
}

// BenchmarkAppendString: escaping a streamed reply's text, what every
// NDJSON line of intents and replay does.
func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("Here is the plan for the migration: first we copy the tables, then we switch the readers. ", 6)
	b.SetBytes(int64(len(s)))
	dst := make([]byte, 0, 1024)
	for b.Loop() {
		dst = AppendString(dst[:0], s)
	}
}

// Integers of every length up to three words, followed by every ASCII
// byte: Valid agrees with encoding/json (the walk reads digits eight at a
// time).
func TestNumbersEveryLength(t *testing.T) {
	for n := 1; n <= 24; n++ {
		digits := strings.Repeat("7", n)
		for c := 0; c < utf8.RuneSelf; c++ {
			for _, doc := range []string{`[` + digits + string(rune(c)) + `]`, `{"k":-` + digits + string(rune(c)) + `}`, digits + string(rune(c))} {
				if got, want := Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
					t.Fatalf("Valid(%q) = %v, encoding/json says %v", doc, got, want)
				}
			}
		}
	}
}

// stringStops marks exactly the first byte of a word that a string scan
// must stop at (bytes after it may be marked too), for words of the bytes
// around each boundary the masks test.
func TestStringStopsFirstByte(t *testing.T) {
	near := []byte{0, 0x1f, 0x20, 0x21, '"', 0x23, '[', '\\', ']', 0x7f, 0x80, 0x81, 0xa2, 0xdc, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(38, 34))
	for range 200000 {
		var b [8]byte
		for k := range b {
			b[k] = near[rng.IntN(len(near))]
		}
		want := 8
		for k, c := range b {
			if c == '"' || c == '\\' || c < 0x20 {
				want = k
				break
			}
		}
		m := stringStops(binary.LittleEndian.Uint64(b[:]))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != want || (m != 0 && m&^msb != 0) {
			t.Fatalf("stringStops(% x) = %#x: first stop %d, want %d", b, m, got, want)
		}
	}
}

// TestAppendIntAsStrconv holds AppendInt to strconv at every length and
// at the edges of its eight-digit steps.
func TestAppendIntAsStrconv(t *testing.T) {
	check := func(n int64) {
		t.Helper()
		if got, want := string(AppendInt([]byte("x"), n)), "x"+strconv.FormatInt(n, 10); got != want {
			t.Fatalf("AppendInt(%d) = %s, want %s", n, got, want)
		}
	}
	for _, n := range []int64{0, 1, 9, 10, 99, 100, 101, 999, 1000, 9999, 10000, 99999999, 1e8, 1e8 + 1,
		1795317849644, 1e16 - 1, 1e16, math.MaxInt64, math.MinInt64, -1, -1795317849644} {
		check(n)
	}
	for p := int64(1); p > 0 && p <= math.MaxInt64/10; p *= 10 {
		for _, d := range []int64{-1, 0, 1, 7 * p / 10} {
			check(p + d)
			check(9*p + d)
		}
	}
}

func FuzzAppendInt(f *testing.F) {
	f.Add(int64(1795317849644))
	f.Add(int64(-5))
	f.Fuzz(func(t *testing.T, n int64) {
		if got, want := string(AppendInt(nil, n)), strconv.FormatInt(n, 10); got != want {
			t.Fatalf("AppendInt(%d) = %s, want %s", n, got, want)
		}
	})
}
