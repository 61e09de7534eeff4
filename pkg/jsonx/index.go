package jsonx

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// A Schema names the members of an object, and of the objects in them,
// whose places a validating walk records in an Index (ObjectEachEndIndexed):
// what the readers of a frame ask for (the classifier's type, event and
// payload members, the redactor's method and id). The walk that validates a
// line then indexes it too, and those readers look the members up instead
// of walking the frame again: one walk per frame.
//
// Each path ("type", "payload.runId", "payload.data.text") has a slot; a
// path's parents have theirs too, and the walk descends only into an
// object whose path is a parent of another. A Schema holds at most
// MaxSlots paths and is safe for concurrent use once built.
type Schema struct {
	nodes []schemaNode
	slots map[string]int
	paths []string
}

// maxIndexed is the longest value an Index can index.
const maxIndexed uint64 = math.MaxUint32

// MaxSlots is the most paths a Schema holds.
const MaxSlots = 40

// schemaNode is one object level: its keys by a hash of their length and
// first and last bytes (a table of 64, built without collisions), each
// with its slot and, for a key whose object is walked into, its node.
type schemaNode struct {
	mult  uint32
	table [64]int8 // 1 + the key's index, 0 for none
	keys  []string
	slots []uint8
	child []int16 // -1: not walked into
	first uint8   // this level's subtree is slots [first, end)
	end   uint8
}

// NewSchema builds a schema of paths, dot-separated; it panics on more
// than MaxSlots paths (parents included) or on a key with a dot.
func NewSchema(paths ...string) *Schema {
	s := &Schema{slots: map[string]int{}}
	type tree struct {
		keys []string
		kids map[string]*tree
	}
	root := &tree{kids: map[string]*tree{}}
	for _, p := range paths {
		t := root
		for _, k := range strings.Split(p, ".") {
			if k == "" {
				panic("jsonx: empty key in schema path " + p)
			}
			c, ok := t.kids[k]
			if !ok {
				c = &tree{kids: map[string]*tree{}}
				t.kids[k] = c
				t.keys = append(t.keys, k)
			}
			t = c
		}
	}
	var build func(t *tree, prefix string) int16
	build = func(t *tree, prefix string) int16 {
		at := len(s.nodes)
		s.nodes = append(s.nodes, schemaNode{})
		first := len(s.paths)
		n := schemaNode{first: uint8(first)}
		for _, k := range t.keys {
			path := prefix + k
			s.slots[path] = len(s.paths)
			s.paths = append(s.paths, path)
			n.keys = append(n.keys, k)
			n.slots = append(n.slots, uint8(s.slots[path]))
			n.child = append(n.child, -1)
		}
		for i, k := range t.keys {
			if c := t.kids[k]; len(c.keys) > 0 {
				n.child[i] = build(c, prefix+k+".")
			}
		}
		if len(s.paths) > MaxSlots {
			panic(fmt.Sprintf("jsonx: a schema of %d paths, more than %d", len(s.paths), MaxSlots))
		}
		n.end = uint8(len(s.paths))
		n.hash()
		s.nodes[at] = n
		return int16(at)
	}
	build(root, "")
	return s
}

// hash finds a multiplier under which the level's keys do not collide.
func (n *schemaNode) hash() {
	for mult := uint32(0x9E3779B1); ; mult += 0x6A09E667 {
		var t [64]int8
		ok := true
		for i, k := range n.keys {
			h := keyHash([]byte(k), mult)
			if t[h] != 0 {
				ok = false
				break
			}
			t[h] = int8(i + 1)
		}
		if ok {
			n.mult, n.table = mult, t
			return
		}
	}
}

func keyHash(k []byte, mult uint32) uint32 {
	x := uint32(len(k))<<16 | uint32(k[0])<<8 | uint32(k[len(k)-1])
	return (x * mult) >> 26
}

// lookup returns the index of key k at this level, or -1.
func (n *schemaNode) lookup(k []byte) int {
	if len(k) == 0 {
		return -1
	}
	if e := n.table[keyHash(k, n.mult)]; e != 0 && string(k) == n.keys[e-1] {
		return int(e - 1)
	}
	return -1
}

// Slot is the slot of path, which must be one of the schema's paths.
func (s *Schema) Slot(path string) int {
	i, ok := s.slots[path]
	if !ok {
		panic("jsonx: no path " + path + " in the schema")
	}
	return i
}

// An Index is where a walk found the members a Schema names in one value:
// for each slot, the span of the member's raw value, counted from the
// value's first byte.
type Index struct {
	span [MaxSlots]memberSpan
	// Exact reports that the walk indexed the value unambiguously: no key
	// at a level it walked into was repeated or spelt with an escape (a
	// reader then has to walk the value itself to read it as JSON.parse
	// does), and the value is an object.
	Exact bool
	// ASCII reports that the walk read every byte of the data it was
	// given (ObjectEachEndIndexed's obj) and none is above 0x7F: the data
	// is valid UTF-8 as it stands. False when the walk cannot tell.
	ASCII bool
	// Plain reports that the walk read every byte of the data and none is
	// a backslash: no string in it has an escape, each is its own text.
	// False when the walk cannot tell.
	Plain bool
}

type memberSpan struct{ start, end uint32 } // end 0: absent

// Get returns the raw value at slot within value (the bytes the walk
// indexed), or nil when the member is absent.
func (m *Index) Get(value []byte, slot int) []byte {
	s := m.span[slot]
	if s.end == 0 || int(s.end) > len(value) || s.start >= s.end {
		return nil
	}
	return value[s.start:s.end:s.end]
}

// Has reports whether the member at slot is present.
func (m *Index) Has(slot int) bool { return m.span[slot].end != 0 }

// Reset empties m.
func (m *Index) Reset() { *m = Index{} }

// indexer records members during a validating walk.
type indexer struct {
	s    *Schema
	m    *Index
	base int  // offset of the indexed value in the data being validated
	esc  bool // (the walk by tokens) a backslash is somewhere in the data
}

// ObjectEachEndIndexed is ObjectEachEnd that also indexes the value of
// the member named key into m (emptied first) by the schema s: m is left
// empty (not Exact) when there is no such member, when it is not an
// object, or when obj is too long to index. A nil m indexes nothing.
func ObjectEachEndIndexed(obj []byte, key string, s *Schema, m *Index, fn func(key, value []byte) bool) (int, error) {
	if m == nil || s == nil || uint64(len(obj)) > maxIndexed {
		return objectEachEnd(obj, fn)
	}
	m.Reset()
	if useTape {
		if end, err, ok := objectEachEndTape(obj, key, s, m, fn); ok {
			return end, err
		}
	}
	return objectEachEndIdx(obj, key, &indexer{s: s, m: m}, fn)
}

// IndexValue validates value, one JSON value alone (surrounding white
// space allowed), and indexes it into m by s; it reports whether value
// is valid.
func IndexValue(value []byte, s *Schema, m *Index) bool {
	m.Reset()
	i := skipSpace(value, 0)
	if uint64(len(value)) > maxIndexed {
		end, err := skip(value, i, 0)
		return err == nil && skipSpace(value, end) == len(value)
	}
	x := &indexer{s: s, m: m, base: i}
	end, err := x.value(value, i, 0)
	if err != nil || skipSpace(value, end) != len(value) {
		m.Reset()
		return false
	}
	return true
}

func objectEachEndIdx(obj []byte, index string, x *indexer, fn func(key, value []byte) bool) (int, error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return 0, ErrSyntax
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return 0, ErrSyntax
		}
		kend, err := skipString(obj, i)
		if err != nil {
			return 0, err
		}
		key := obj[i+1 : kend-1]
		i = skipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return 0, ErrSyntax
		}
		i = skipSpace(obj, i+1)
		vstart := i
		if string(key) == index {
			// The last duplicate wins, as everywhere else.
			x.m.Reset()
			x.base = vstart
			i, err = x.value(obj, i, 1)
		} else {
			i, err = skip(obj, i, 1)
		}
		if err != nil {
			x.m.Reset()
			return 0, err
		}
		if !fn(key, obj[vstart:i]) {
			return -1, nil
		}
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return 0, ErrSyntax
		}
		if obj[i] == '}' {
			return i + 1, nil
		}
		if obj[i] != ',' {
			return 0, ErrSyntax
		}
		i = skipSpace(obj, i+1)
	}
}

// value validates the value at data[i], the indexed one: an object is
// walked by the schema's first level.
func (x *indexer) value(data []byte, i, depth int) (int, error) {
	if i < len(data) && data[i] == '{' {
		x.m.Exact = true
		return x.object(data, i, depth, 0)
	}
	return skip(data, i, depth)
}

// object validates the object at data[i] and records the members of
// level node.
func (x *indexer) object(data []byte, i, depth int, node int16) (int, error) {
	if depth >= maxDepth {
		return 0, ErrSyntax
	}
	n := &x.s.nodes[node]
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, ErrSyntax
		}
		// A key: most end within a word of eight bytes, found at once;
		// a longer one is read on byte by byte. An escape (or anything
		// unusual) is left to skipString, and the index to the reader.
		j := i + 1
		if j+8 <= len(data) {
			if m := stringStops(binary.LittleEndian.Uint64(data[j:])); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
			} else {
				j += 8
			}
		}
		for j < len(data) && data[j] != '"' && data[j] != '\\' && data[j] >= 0x20 {
			j++
		}
		var kend int
		if j < len(data) && data[j] == '"' {
			kend = j + 1
		} else {
			var err error
			if kend, err = skipString(data, i); err != nil {
				return 0, err
			}
			x.m.Exact = false // an escaped key: the reader decodes it
		}
		k := n.lookup(data[i+1 : kend-1])
		i = skipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return 0, ErrSyntax
		}
		i = skipSpace(data, i+1)
		vstart := i
		var err error
		switch {
		case k < 0:
			i, err = skip(data, i, depth+1)
		case n.child[k] >= 0 && i < len(data) && data[i] == '{':
			i, err = x.object(data, i, depth+1, n.child[k])
		default:
			i, err = skip(data, i, depth+1)
		}
		if err != nil {
			return 0, err
		}
		if k >= 0 {
			sp := &x.m.span[n.slots[k]]
			if sp.end != 0 {
				x.m.Exact = false // a repeated key: the last wins, but what of its parts?
			}
			*sp = memberSpan{uint32(vstart - x.base), uint32(i - x.base)}
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return 0, ErrSyntax
		}
		if data[i] == '}' {
			return i + 1, nil
		}
		if data[i] != ',' {
			return 0, ErrSyntax
		}
		i = skipSpace(data, i+1)
	}
}
