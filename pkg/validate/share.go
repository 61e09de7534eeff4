package validate

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"reflect"
	"slices"
)

// The protocol schema repeats itself: of its 28,000 objects only 3,800
// differ ({"type":"string","minLength":1} alone appears thousands of
// times). Decoded into maps it takes 14 MB, most of validate's heap, and it
// must stay live while definitions compile as frames need them. share
// makes equal subtrees one value, so the document takes a few megabytes.
// The compiler only reads the document, and finds its parts by location,
// never by identity, so sharing changes nothing it sees.

// share returns doc with every object and array that equals one met
// before replaced by that one. Subtrees are compared after their own
// children were shared, so equal ones are found by their hashes and
// confirmed with reflect.DeepEqual (which takes a shared child as equal
// at once). The walk goes through keys in order: the result does not
// depend on map order or on the hash seed.
func share(doc any) any {
	s := &sharer{seed: maphash.MakeSeed(), seen: map[uint64][]any{}}
	v, _ := s.node(doc)
	return v
}

type sharer struct {
	seed maphash.Seed
	seen map[uint64][]any
}

// node shares v's subtrees and returns the value to keep in v's place,
// with its hash.
func (s *sharer) node(v any) (any, uint64) {
	var h maphash.Hash
	h.SetSeed(s.seed)
	switch x := v.(type) {
	case map[string]any:
		h.WriteByte('{')
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			c, ch := s.node(x[k])
			x[k] = c
			h.WriteString(k)
			writeUint(&h, ch)
		}
	case []any:
		h.WriteByte('[')
		for i := range x {
			c, ch := s.node(x[i])
			x[i] = c
			writeUint(&h, ch)
		}
	case string:
		h.WriteByte('s')
		h.WriteString(x)
		return v, h.Sum64()
	case json.Number:
		h.WriteByte('n')
		h.WriteString(string(x))
		return v, h.Sum64()
	case float64:
		h.WriteByte('f')
		writeUint(&h, math.Float64bits(x))
		return v, h.Sum64()
	case bool:
		if x {
			h.WriteByte('t')
		} else {
			h.WriteByte('F')
		}
		return v, h.Sum64()
	default: // null, and whatever else a decoder may give, kept as it is
		h.WriteByte('0')
		return v, h.Sum64()
	}
	sum := h.Sum64()
	for _, c := range s.seen[sum] {
		if reflect.DeepEqual(c, v) {
			return c, sum
		}
	}
	s.seen[sum] = append(s.seen[sum], v)
	return v, sum
}

func writeUint(h *maphash.Hash, n uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], n)
	h.Write(b[:])
}
