package stats

// tally counts names into a map with countName, the names of the last
// frames in front of it: most frames repeat one of a few names (deltas
// alternate agent and chat), which is compared with those instead of
// hashed. A name met anew is counted in the map at once, so it gets its
// place there (or "(other)") in the order countName gives it; the frames
// that repeat it are counted in front until flush.
type tally struct {
	m     map[string]int
	names [tallied]string
	keys  [tallied]string // where each name counts: itself or "(other)"
	n     [tallied]int    // frames counted in front
	set   [tallied]bool
	next  int
}

// tallied is how many names a tally counts in front: a run's agent
// streams (assistant, thinking, tool, lifecycle) take four.
const tallied = 4

func (t *tally) add(name string) {
	for i := range t.names {
		if t.set[i] && t.names[i] == name {
			t.n[i]++
			return
		}
	}
	i := t.next
	t.next = (t.next + 1) % len(t.names)
	t.flushOne(i)
	countName(t.m, name)
	key := name
	if _, ok := t.m[name]; !ok {
		key = "(other)"
	}
	t.names[i], t.keys[i], t.set[i] = name, key, true
}

func (t *tally) flushOne(i int) {
	if t.n[i] > 0 {
		t.m[t.keys[i]] += t.n[i]
		t.n[i] = 0
	}
}

// flush brings the counts in front into the map.
func (t *tally) flush() {
	for i := range t.n {
		t.flushOne(i)
	}
}

// countName counts name in m, or as "(other)" once m holds maxNames
// names.
func countName(m map[string]int, name string) {
	if len(m) < maxNames {
		m[name]++
		return
	}
	if _, ok := m[name]; ok {
		m[name]++
		return
	}
	m["(other)"]++
}
