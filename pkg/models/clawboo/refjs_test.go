package clawboo_test

// A small JavaScript value model for the differential test: JSON.parse
// into values whose strings are UTF-16 code units (so a lone surrogate is
// simply a code unit), and an encoder that writes frames back. It shares
// no code with pkg/jsonx, pkg/jsstr or pkg/message on purpose.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

type jkind byte

const (
	jUndef jkind = iota
	jNull
	jBool
	jNum
	jStr
	jArr
	jObj
)

type jv struct {
	k   jkind
	b   bool
	n   float64
	lit string   // a number's spelling, written back as is
	s   []uint16 // jStr
	a   []*jv
	o   []jkv // in first-appearance order; a repeated key keeps the last value
}

type jkv struct {
	k string // keys are compared as Go strings of their code units
	v *jv
}

var undef = &jv{k: jUndef}

func jstr(s string) *jv { return &jv{k: jStr, s: utf16.Encode([]rune(s))} }

func jnum(lit string) *jv {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		panic(lit)
	}
	return &jv{k: jNum, n: f, lit: lit}
}

// get is v[key] for an object (undefined otherwise).
func (v *jv) get(key string) *jv {
	if v == nil || v.k != jObj {
		return undef
	}
	for _, m := range v.o {
		if m.k == key {
			return m.v
		}
	}
	return undef
}

func (v *jv) set(key string, x *jv) {
	for i := range v.o {
		if v.o[i].k == key {
			if x == nil {
				v.o = append(v.o[:i], v.o[i+1:]...)
			} else {
				v.o[i].v = x
			}
			return
		}
	}
	if x != nil {
		v.o = append(v.o, jkv{key, x})
	}
}

func (v *jv) clone() *jv {
	c := *v
	c.a = nil
	for _, e := range v.a {
		c.a = append(c.a, e.clone())
	}
	c.o = nil
	for _, m := range v.o {
		c.o = append(c.o, jkv{m.k, m.v.clone()})
	}
	return &c
}

func (v *jv) isStr() bool { return v.k == jStr }

// str is the Go spelling of a string value (lone surrogates become U+FFFD:
// only for comparisons with ASCII names).
func (v *jv) str() string { return string(utf16.Decode(v.s)) }

func (v *jv) strIs(s string) bool { return v.k == jStr && v.str() == s && !hasLone(v.s) }

func (v *jv) truthy() bool {
	switch v.k {
	case jBool:
		return v.b
	case jNum:
		return v.n != 0 && v.n == v.n
	case jStr:
		return len(v.s) > 0
	case jArr, jObj:
		return true
	}
	return false
}

func hasLone(u []uint16) bool {
	for i := 0; i < len(u); i++ {
		if u[i] >= 0xD800 && u[i] < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
			i++
			continue
		}
		if u[i] >= 0xD800 && u[i] < 0xE000 {
			return true
		}
	}
	return false
}

// parse is JSON.parse over valid JSON (the frames come from captures the
// reader validated, or from encode).
func parse(b []byte) *jv {
	p := &parser{b: b}
	v := p.value()
	return v
}

type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) value() *jv {
	p.ws()
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		v := &jv{k: jObj}
		for {
			p.ws()
			if p.b[p.i] == '}' {
				p.i++
				return v
			}
			if p.b[p.i] == ',' {
				p.i++
				continue
			}
			k := p.value()
			p.ws()
			p.i++ // ':'
			v.set(string(k.rawKey()), p.value())
		}
	case c == '[':
		p.i++
		v := &jv{k: jArr}
		for {
			p.ws()
			if p.b[p.i] == ']' {
				p.i++
				return v
			}
			if p.b[p.i] == ',' {
				p.i++
				continue
			}
			v.a = append(v.a, p.value())
		}
	case c == '"':
		p.i++
		var u []uint16
		for p.b[p.i] != '"' {
			if p.b[p.i] == '\\' {
				e := p.b[p.i+1]
				if e == 'u' {
					n, _ := strconv.ParseUint(string(p.b[p.i+2:p.i+6]), 16, 16)
					u = append(u, uint16(n))
					p.i += 6
					continue
				}
				u = append(u, uint16(map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[e]))
				p.i += 2
				continue
			}
			r, size := utf8.DecodeRune(p.b[p.i:])
			u = utf16.AppendRune(u, r)
			p.i += size
		}
		p.i++
		return &jv{k: jStr, s: u}
	case c == 't':
		p.i += 4
		return &jv{k: jBool, b: true}
	case c == 'f':
		p.i += 5
		return &jv{k: jBool}
	case c == 'n':
		p.i += 4
		return &jv{k: jNull}
	default:
		j := p.i
		for p.i < len(p.b) && strings.IndexByte("+-0123456789.eE", p.b[p.i]) >= 0 {
			p.i++
		}
		return jnum(string(p.b[j:p.i]))
	}
}

// rawKey is a key's identity: its code units as a string of runes, lone
// surrogates included (as the replacement character's neighbours never
// collide with real keys in these tests).
func (v *jv) rawKey() string {
	var b strings.Builder
	for _, u := range v.s {
		b.WriteRune(rune(u))
	}
	return b.String()
}

// encode writes v as JSON: strings with \uXXXX for lone surrogates and
// control characters, everything else as UTF-8; numbers as spelt.
func encode(dst []byte, v *jv) []byte {
	switch v.k {
	case jNull, jUndef:
		return append(dst, "null"...)
	case jBool:
		return strconv.AppendBool(dst, v.b)
	case jNum:
		return append(dst, v.lit...)
	case jStr:
		return appendUnits(dst, v.s, false)
	case jArr:
		dst = append(dst, '[')
		for i, e := range v.a {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = encode(dst, e)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, m := range v.o {
		if i > 0 {
			dst = append(dst, ',')
		}
		var key []uint16
		for _, r := range m.k {
			key = append(key, uint16(r))
		}
		dst = appendUnits(dst, key, false)
		dst = append(dst, ':')
		dst = encode(dst, m.v)
	}
	return append(dst, '}')
}

// appendUnits writes a JSON string of code units. html escapes <, >, &,
// U+2028 and U+2029 as clawtap's output does (encoding/json's rules).
func appendUnits(dst []byte, u []uint16, html bool) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', byte(c))
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c == '\b':
			dst = append(dst, `\b`...)
		case c == '\f':
			dst = append(dst, `\f`...)
		case c < 0x20, html && (c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029):
			dst = fmt.Appendf(dst, `\u%04x`, c)
		case c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000:
			dst = utf8.AppendRune(dst, utf16.DecodeRune(rune(c), rune(u[i+1])))
			i++
		case c >= 0xD800 && c < 0xE000:
			dst = fmt.Appendf(dst, `\u%04x`, c)
		default:
			dst = utf8.AppendRune(dst, rune(c))
		}
	}
	return append(dst, '"')
}

// --- JavaScript string and number semantics, written from the language
// definition rather than from clawtap's code.

// isWS is what String#trim and \s remove: WhiteSpace (TAB, VT, FF, ZWNBSP
// and the Zs category) and LineTerminator (LF, CR, LS, PS).
func isWS(u uint16) bool {
	switch u {
	case '\t', '\v', '\f', 0xFEFF, '\n', '\r', 0x2028, 0x2029:
		return true
	}
	return u < 0xD800 && unicode.Is(unicode.Zs, rune(u))
}

func trimStartU(u []uint16) []uint16 {
	for len(u) > 0 && isWS(u[0]) {
		u = u[1:]
	}
	return u
}

func trimU(u []uint16) []uint16 {
	u = trimStartU(u)
	for len(u) > 0 && isWS(u[len(u)-1]) {
		u = u[:len(u)-1]
	}
	return u
}

// lowerU is String#toLowerCase, per code point: U+0130 becomes U+0069
// U+0307 (SpecialCasing), everything else its simple lower-case form;
// lone surrogates stay. (Final sigma is left out: σ and ς are both
// non-ASCII, which is all the substring tests below look at.)
func lowerU(u []uint16) []uint16 {
	var out []uint16
	for i := 0; i < len(u); i++ {
		r := rune(u[i])
		if u[i] >= 0xD800 && u[i] < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
			r = utf16.DecodeRune(r, rune(u[i+1]))
			i++
		} else if u[i] >= 0xD800 && u[i] < 0xE000 {
			out = append(out, u[i])
			continue
		}
		if r == 0x130 {
			out = append(out, 'i', 0x307)
			continue
		}
		out = utf16.AppendRune(out, unicode.ToLower(r))
	}
	return out
}

func containsU(u []uint16, sub string) bool {
	return strings.Contains(string(utf16.Decode(u)), sub)
}

// numString is Number#toString: encoding/json formats floats as ES6 does,
// except that it keeps the sign of -0.
func numString(f float64) string {
	switch {
	case f != f:
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	b, _ := json.Marshal(f)
	return string(b)
}

// numJSON is JSON.stringify of a number.
func numJSON(f float64) string {
	if math.IsInf(f, 0) || f != f {
		return "null"
	}
	return numString(f)
}

// jsString is String(v).
func jsString(v *jv) []uint16 {
	switch v.k {
	case jUndef:
		return utf16.Encode([]rune("undefined"))
	case jNull:
		return utf16.Encode([]rune("null"))
	case jBool:
		return utf16.Encode([]rune(strconv.FormatBool(v.b)))
	case jNum:
		return utf16.Encode([]rune(numString(v.n)))
	case jStr:
		return v.s
	case jObj:
		return utf16.Encode([]rune("[object Object]"))
	}
	var out []uint16
	for i, e := range v.a {
		if i > 0 {
			out = append(out, ',')
		}
		if e.k != jNull && e.k != jUndef {
			out = append(out, jsString(e)...)
		}
	}
	return out
}

// stringify2 is JSON.stringify(v, null, 2) (as UTF-16).
func stringify2(v *jv, indent string) []uint16 {
	u := func(s string) []uint16 { return utf16.Encode([]rune(s)) }
	switch v.k {
	case jNull, jUndef:
		return u("null")
	case jBool:
		return u(strconv.FormatBool(v.b))
	case jNum:
		return u(numJSON(v.n))
	case jStr:
		return strUnits(appendUnits(nil, v.s, false))
	case jArr:
		if len(v.a) == 0 {
			return u("[]")
		}
		out := u("[")
		for i, e := range v.a {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, u("\n"+indent+"  ")...)
			out = append(out, stringify2(e, indent+"  ")...)
		}
		return append(out, u("\n"+indent+"]")...)
	}
	if len(v.o) == 0 {
		return u("{}")
	}
	// Integer-like keys first, ascending; then the rest in order.
	var idx, rest []jkv
	for _, m := range v.o {
		if n, err := strconv.ParseUint(m.k, 10, 32); err == nil && strconv.FormatUint(n, 10) == m.k && n < math.MaxUint32 {
			idx = append(idx, m)
		} else {
			rest = append(rest, m)
		}
	}
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0; j-- {
			a, _ := strconv.ParseUint(idx[j-1].k, 10, 32)
			b, _ := strconv.ParseUint(idx[j].k, 10, 32)
			if a > b {
				idx[j-1], idx[j] = idx[j], idx[j-1]
			}
		}
	}
	out := u("{")
	for i, m := range append(idx, rest...) {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, u("\n"+indent+"  ")...)
		var key []uint16
		for _, r := range m.k {
			key = append(key, uint16(r))
		}
		out = append(out, strUnits(appendUnits(nil, key, false))...)
		out = append(out, ':', ' ')
		out = append(out, stringify2(m.v, indent+"  ")...)
	}
	return append(out, u("\n"+indent+"}")...)
}

// strUnits turns encoder output (UTF-8 with \u escapes for lone
// surrogates) back into code units, the escapes kept as text.
func strUnits(b []byte) []uint16 { return utf16.Encode([]rune(string(b))) }
