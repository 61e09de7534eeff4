package jsonx

import "bytes"

// Stage two of the walk by tokens (tape.go): the byte walk's grammar
// (objectEachEndIdx, indexer.object, skip) stepping from token to token.
// toks[k] is the offset of token k; each function takes the index of a
// value's first token and returns the index of the token after the value
// and the offset just past it. Between two tokens there is only white
// space, a string's inside or the rest of a scalar: the scalars are read
// byte by byte, as before, and the byte after each is looked at
// (tokenStop), where the byte walk looks for the ',' after it.

// objectEachEndTape is ObjectEachEndIndexed by tokens; ok is false, with
// nothing called, when the byte walk must read obj instead.
func objectEachEndTape(obj []byte, index string, s *Schema, m *Index, fn func(key, value []byte) bool) (end int, err error, ok bool) {
	buf := tapePool.Get().(*[]uint32)
	t := tape{toks: *buf}
	defer func() { *buf = t.toks[:0]; tapePool.Put(buf) }()
	if !t.build(obj) {
		return 0, nil, false
	}
	x := indexer{s: s, m: m, esc: t.esc}
	end, err = envelopeT(obj, t.toks, index, &x, fn)
	m.ASCII, m.Plain = t.ascii && err == nil, !t.esc && err == nil
	return end, err, true
}

// envelopeT is objectEachEndIdx by tokens: the record's members to fn,
// the one named index walked by the schema.
func envelopeT(obj []byte, toks []uint32, index string, x *indexer, fn func(key, value []byte) bool) (int, error) {
	n := len(obj)
	p := int(toks[0])
	if p >= n || obj[p] != '{' {
		return 0, ErrSyntax
	}
	k := 1
	p = int(toks[k])
	if p < n && obj[p] == '}' {
		return p + 1, nil
	}
	for {
		if p >= n || obj[p] != '"' {
			return 0, ErrSyntax
		}
		q, c := int(toks[k+1]), int(toks[k+2])
		if c >= n || obj[c] != ':' {
			return 0, ErrSyntax
		}
		key := obj[p+1 : q]
		k += 3
		vstart := int(toks[k])
		var end int
		var err error
		indexed := string(key) == index
		if indexed {
			x.m.Reset() // the last duplicate wins, as everywhere else
		}
		if indexed && vstart < n && obj[vstart] == '{' {
			x.base, x.m.Exact = vstart, true
			k, end, err = objectT(obj, toks, k, 1, x, 0)
		} else {
			k, end, err = skipT(obj, toks, k, 1)
		}
		if err != nil {
			x.m.Reset()
			return 0, err
		}
		if !fn(key, obj[vstart:end]) {
			return -1, nil
		}
		if end < n && !tokenStop[obj[end]] {
			return 0, ErrSyntax // a scalar running on
		}
		p = int(toks[k])
		if p >= n {
			return 0, ErrSyntax
		}
		if obj[p] == '}' {
			return p + 1, nil
		}
		if obj[p] != ',' {
			return 0, ErrSyntax
		}
		k++
		p = int(toks[k])
	}
}

// objectT is indexer.object by tokens: the object at token k, its members
// recorded by the schema's level node.
func objectT(data []byte, toks []uint32, k, depth int, x *indexer, node int16) (int, int, error) {
	if depth >= maxDepth {
		return 0, 0, ErrSyntax
	}
	nd := &x.s.nodes[node]
	k++
	p := int(toks[k])
	if p < len(data) && data[p] == '}' {
		return k + 1, p + 1, nil
	}
	for {
		if p >= len(data) || data[p] != '"' {
			return 0, 0, ErrSyntax
		}
		q, c := int(toks[k+1]), int(toks[k+2])
		if c >= len(data) || data[c] != ':' {
			return 0, 0, ErrSyntax
		}
		key := data[p+1 : q]
		if x.esc && bytes.IndexByte(key, '\\') >= 0 {
			x.m.Exact = false // an escaped key: the reader decodes it
		}
		i := nd.lookup(key)
		k += 3
		vstart := int(toks[k])
		var end int
		var err error
		switch {
		case vstart < len(data) && data[vstart] == '"':
			end = int(toks[k+1]) + 1
			k += 2
		case i >= 0 && nd.child[i] >= 0 && vstart < len(data) && data[vstart] == '{':
			k, end, err = objectT(data, toks, k, depth+1, x, nd.child[i])
		default:
			k, end, err = skipT(data, toks, k, depth+1)
			if err == nil && end < len(data) && !tokenStop[data[end]] {
				err = ErrSyntax // a scalar running on
			}
		}
		if err != nil {
			return 0, 0, err
		}
		if i >= 0 {
			sp := &x.m.span[nd.slots[i]]
			if sp.end != 0 {
				x.m.Exact = false // a repeated key: the last wins, but what of its parts?
			}
			*sp = memberSpan{uint32(vstart - x.base), uint32(end - x.base)}
		}
		p = int(toks[k])
		if p >= len(data) {
			return 0, 0, ErrSyntax
		}
		if data[p] == '}' {
			return k + 1, p + 1, nil
		}
		if data[p] != ',' {
			return 0, 0, ErrSyntax
		}
		k++
		p = int(toks[k])
	}
}

// skipT is skip by tokens: it validates the value at token k.
func skipT(data []byte, toks []uint32, k, depth int) (int, int, error) {
	p := int(toks[k])
	if p >= len(data) {
		return 0, 0, ErrSyntax
	}
	switch c := data[p]; c {
	case '"':
		return k + 2, int(toks[k+1]) + 1, nil // stage one saw the string closed
	case '{':
		if depth >= maxDepth {
			return 0, 0, ErrSyntax
		}
		k++
		p = int(toks[k])
		if p < len(data) && data[p] == '}' {
			return k + 1, p + 1, nil
		}
		for {
			if p >= len(data) || data[p] != '"' {
				return 0, 0, ErrSyntax
			}
			if c := int(toks[k+2]); c >= len(data) || data[c] != ':' {
				return 0, 0, ErrSyntax
			}
			k += 3
			var end int
			if v := int(toks[k]); v < len(data) && data[v] == '"' {
				end = int(toks[k+1]) + 1
				k += 2
			} else {
				var err error
				if k, end, err = skipT(data, toks, k, depth+1); err != nil {
					return 0, 0, err
				}
				if end < len(data) && !tokenStop[data[end]] {
					return 0, 0, ErrSyntax
				}
			}
			p = int(toks[k])
			if p >= len(data) {
				return 0, 0, ErrSyntax
			}
			if data[p] == '}' {
				return k + 1, p + 1, nil
			}
			if data[p] != ',' {
				return 0, 0, ErrSyntax
			}
			k++
			p = int(toks[k])
		}
	case '[':
		if depth >= maxDepth {
			return 0, 0, ErrSyntax
		}
		k++
		p = int(toks[k])
		if p < len(data) && data[p] == ']' {
			return k + 1, p + 1, nil
		}
		for {
			var end int
			var err error
			if k, end, err = skipT(data, toks, k, depth+1); err != nil {
				return 0, 0, err
			}
			if end < len(data) && !tokenStop[data[end]] {
				return 0, 0, ErrSyntax
			}
			p = int(toks[k])
			if p >= len(data) {
				return 0, 0, ErrSyntax
			}
			if data[p] == ']' {
				return k + 1, p + 1, nil
			}
			if data[p] != ',' {
				return 0, 0, ErrSyntax
			}
			k++
		}
	case 't':
		end, err := literal(data, p, "true")
		return k + 1, end, err
	case 'f':
		end, err := literal(data, p, "false")
		return k + 1, end, err
	case 'n':
		end, err := literal(data, p, "null")
		return k + 1, end, err
	default:
		if c != '-' && (c < '0' || c > '9') {
			return 0, 0, ErrSyntax
		}
		end, err := skipNumber(data, p)
		return k + 1, end, err
	}
}

// tokenStop marks the bytes a scalar may be followed by: stage one marks
// only a scalar's first byte, so one running on ("1x", "truex") is caught
// at the byte after it.
var tokenStop = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r{}[]:,\"") {
		t[c] = true
	}
	return
}()
