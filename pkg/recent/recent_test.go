package recent

import (
	"math/rand"
	"strconv"
	"testing"
)

// The cache agrees with the map it stands before, whatever is put and
// forgotten, and keeps the last keys put.
func TestCacheAgreesWithMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var c Cache[string, int]
	m := map[string]int{}
	for i := 0; i < 20_000; i++ {
		k := "run-" + strconv.Itoa(rng.Intn(13))
		if rng.Intn(10) == 0 {
			delete(m, k)
			c.Forget(k)
		} else {
			m[k] = i
			c.Put(k, i)
			if v, ok := c.Get(k); !ok || v != i {
				t.Fatalf("Get(%s) = %d, %v just after Put %d", k, v, ok, i)
			}
		}
		for j := 0; j < 13; j++ {
			k := "run-" + strconv.Itoa(j)
			v, ok := c.Get(k)
			if w, in := m[k]; ok && (!in || v != w) {
				t.Fatalf("Get(%s) = %d, the map has %d (%v)", k, v, w, in)
			}
		}
	}
	var e Cache[string, int]
	for i := 0; i < size; i++ {
		e.Put(strconv.Itoa(i), i)
	}
	for i := 0; i < size; i++ {
		if v, ok := e.Get(strconv.Itoa(i)); !ok || v != i {
			t.Errorf("key %d of the last %d: %d, %v", i, size, v, ok)
		}
	}
	if _, ok := e.Get(""); ok {
		t.Error("a key never put is found (the zero key)")
	}
}
