package redact

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// randomAnchorBytes is text dense with anchors, quotes and escapes.
func randomAnchorBytes(rng *rand.Rand, n int) []byte {
	const alphabet = `abcdeklnprstuwy ABKS019:=-._\"'/{}[],@<>` + "\x00\x7f\x80\xc3\xa9\xff"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}

// The vector code's masks are the integer code's, less the bytes the
// latter flags that are no anchors.
func TestAnchorMasks(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := randomAnchorBytes(rng, rng.IntN(scanChunk+1))
		var vec, ints [scanChunk / 64]blockMasks
		hasAVX2 = true
		anchorMasks(b, vec[:])
		hasAVX2 = false
		anchorMasks(b, ints[:])
		hasAVX2 = true
		for w := 0; w*64 < len(b); w++ {
			var exact blockMasks
			for k := 0; k < 64 && w*64+k < len(b); k++ {
				c := b[w*64+k]
				if rawAnchors[c] != anNone {
					exact.any |= 1 << k
				}
				if c == ':' {
					exact.colon |= 1 << k
				}
				if c == '"' {
					exact.quote |= 1 << k
				}
				if c == '\\' {
					exact.bslash |= 1 << k
				}
				if c == 'u' {
					exact.u |= 1 << k
				}
				if c == 'b' {
					exact.b |= 1 << k
				}
			}
			got, v := ints[w], vec[w]
			got.any = exact.any // the integer code's anchors may be more
			if exact.bslash == 0 {
				v.u, v.b = exact.u, exact.b // left out without a backslash
			}
			if v != exact || ints[w].any&exact.any != exact.any || got != exact {
				t.Fatalf("block %d of %q:\nvector %+v\nints   %+v\nexact  %+v", w, b[w*64:min(len(b), w*64+64)], vec[w], ints[w], exact)
			}
		}
	}
}

func TestCommonPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		a := randomAnchorBytes(rng, rng.IntN(300))
		e := append([]byte(nil), a[:rng.IntN(len(a)+1)]...)
		e = append(e, randomAnchorBytes(rng, rng.IntN(100))...)
		want := 0
		for want < len(a) && want < len(e) && a[want] == e[want] {
			want++
		}
		for _, vec := range []bool{true, false} {
			if vec && !hasAVX2 {
				continue
			}
			old := hasAVX2
			hasAVX2 = vec
			got := commonPrefix(a, e)
			hasAVX2 = old
			if got != want {
				t.Fatalf("commonPrefix(%q, %q) = %d, want %d (vector %v)", a, e, got, want, vec)
			}
		}
	}
}

// oneByOne is the pre-scan as it was first written: at on every anchor in
// turn, escapes skipped as at says.
func oneByOne(b []byte, frame bool) bool {
	rs := rawScan{b: b, frame: frame}
	for j, next := 0, 0; j < len(b); j++ {
		if j < next || rawAnchors[b[j]] == anNone {
			continue
		}
		hit, nx := rs.at(j)
		if hit {
			return true
		}
		next = nx
	}
	return false
}

// The pre-scan's masks, first tests and caches say what at on every anchor
// in turn says, on text dense with escapes, names, shapes and keys.
func TestPrescanAsOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pieces := []string{`\\`, `\u0041`, `\u00e9`, `\b`, `\n`, `\"`, "u", "b", "earer abcdefgh1234", "Bearer ", "token", "password", "description", "apiKey",
		"sessionKey", ":", "=", " ", `"`, `":`, `":"`, "-", "--", ".", "_", "sk-", "ghp_", "AKIA", "0123456789abcdef", "https://", "u:p@h", "method", "secret",
		"a", "Z", "9", "{", "}", ",", "seq", "ts", "gl", "xox", "eyJhbGciOi", "-----BEGIN ", "PRIVATE KEY-----", "/__openclaw__/cap/"}
	diff, hits := 0, 0
	for range 30000 {
		var b []byte
		for n := rng.IntN(40); n > 0; n-- {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		for _, frame := range []bool{true, false} {
			for _, vec := range []bool{true, false} {
				if vec && !hasAVX2 {
					continue
				}
				old := hasAVX2
				hasAVX2 = vec
				got, _ := prescan(b, frame)
				hasAVX2 = old
				want := oneByOne(b, frame)
				if want && !got {
					t.Fatalf("%q (frame %v, vector %v): at says yes, the pre-scan no", b, frame, vec)
				}
				if got != want {
					diff++
				}
				if want {
					hits++
				}
			}
		}
	}
	if diff > 0 {
		t.Errorf("%d verdicts differ (the pre-scan says yes, at no)", diff)
	}
	if hits < 10000 || hits > 100000 {
		t.Errorf("%d verdicts of yes: the inputs test too little", hits)
	}
}

// The pre-scan says the same with the vector code and without.
func TestPrescanSameWithoutVectors(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var inputs [][]byte
	for _, c := range textCorpus {
		inputs = append(inputs, []byte(c.in))
	}
	for _, s := range []string{connectV4, helloV4, chatDelta, agentText, toolResult, configSchemaFrame, toolWithSession} {
		inputs = append(inputs, []byte(s))
	}
	for range 2000 {
		inputs = append(inputs, randomAnchorBytes(rng, rng.IntN(600)))
	}
	defer func() { hasAVX2 = true }()
	for _, in := range inputs {
		for _, frame := range []bool{true, false} {
			hasAVX2 = true
			h1, k1 := prescan(in, frame)
			hasAVX2 = false
			h2, k2 := prescan(in, frame)
			if h1 != h2 || k1 != k2 {
				t.Fatalf("prescan(%q, %v): vector %v %v, integer %v %v", in, frame, h1, k1, h2, k2)
			}
		}
	}
}

// A frame that starts as a remembered one is judged as a fresh redactor
// judges it.
func TestFrameHeads(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	secrets := []string{"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "password: hunter22", `\"token\":\"abcdef123456\"`, "Bearer abcdefgh12345678", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}
	changed := 0
	for _, base := range [][]byte{[]byte(agentText), []byte(chatDelta), []byte(toolWithSession)} {
		r := New(Options{})
		for range 2000 {
			f := append([]byte(nil), base[:rng.IntN(len(base)+1)]...)
			if rng.IntN(2) == 0 {
				f = append(f, secrets[rng.IntN(len(secrets))]...)
			} else {
				f = append(f, randomAnchorBytes(rng, rng.IntN(80))...)
			}
			f = append(f, base[min(len(base), len(f)):]...)
			got := r.Frame("in", f)
			want := New(Options{}).Frame("in", f)
			if !bytes.Equal(got, want) {
				t.Fatalf("%q:\n got %q\nwant %q", f, got, want)
			}
			if !bytes.Equal(got, f) {
				changed++
			}
			if rng.IntN(4) == 0 {
				r.Frame("in", base)
			}
		}
	}
	if changed < 100 {
		t.Fatalf("only %d frames changed: the test finds too few credentials", changed)
	}
}
