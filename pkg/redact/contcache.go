package redact

// contCache remembers the credential containers (the object values of
// credential names) the pre-scan searched and found nothing generated in.
// A config.schema response gives every secret field the same schema
// object, thousands of times: one that is byte for byte one remembered is
// the same JSON value (a value's extent depends only on its own bytes)
// with the same verdict, so it is not parsed and searched again.
type contCache struct {
	ents [contCacheN]struct {
		v   []byte
		hit bool // met again since the clock hand last passed it
	}
	hand int
}

const (
	contCacheN   = 8
	contCacheMax = 4096 // longer containers are searched each time
)

// known returns the length of the remembered clean container b starts
// with, or 0.
func (c *contCache) known(b []byte) int {
	for i := range c.ents {
		e := &c.ents[i]
		if n := len(e.v); n > 0 && len(b) >= n && b[n-1] == e.v[n-1] && string(b[:n]) == string(e.v) {
			e.hit = true
			return n
		}
	}
	return 0
}

// add remembers v, a clean container, in place of one not met lately.
func (c *contCache) add(v []byte) {
	if len(v) > contCacheMax {
		return
	}
	for {
		e := &c.ents[c.hand]
		c.hand = (c.hand + 1) % contCacheN
		if e.hit {
			e.hit = false
			continue
		}
		e.v = append(e.v[:0], v...)
		return
	}
}
