// Package recent remembers the last few lookups of a map. The runs of a
// capture interleave (agents stream at once), so the run a frame names is
// nearly always one of the last few seen: comparing its key with those
// (run ids are interned by the bridge, so mostly one pointer to compare)
// costs less than hashing it into a map of thousands.
package recent

// size is how many keys are remembered: a few agents streaming at once.
const size = 4

// Cache is the last few keys looked up and their values; the zero value
// is empty. Its owner keeps it in step with the map it stands before: Put
// what it found or added, Forget what it deleted.
type Cache[K comparable, V any] struct {
	keys [size]K
	vals [size]V
	set  [size]bool
	next int
}

// Get returns the value of key, if it is one of the last few.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	for i := range c.keys {
		if c.set[i] && c.keys[i] == key {
			return c.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// Put remembers key's value, in place of the oldest key remembered.
func (c *Cache[K, V]) Put(key K, v V) {
	for i := range c.keys {
		if c.set[i] && c.keys[i] == key {
			c.vals[i] = v
			return
		}
	}
	c.keys[c.next], c.vals[c.next], c.set[c.next] = key, v, true
	c.next = (c.next + 1) % size
}

// Forget drops key.
func (c *Cache[K, V]) Forget(key K) {
	var k0 K
	var v0 V
	for i := range c.keys {
		if c.set[i] && c.keys[i] == key {
			c.keys[i], c.vals[i], c.set[i] = k0, v0, false
		}
	}
}
