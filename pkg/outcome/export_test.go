package outcome

// Held is what the ledger still refers to: agents' latest runs, runs
// waiting for their reply to be committed, and guard closings.
func (t *Ledger) Held() (latest, pending, closers int) {
	for _, list := range t.pending {
		pending += len(list)
	}
	return len(t.latest), pending, len(t.closer)
}

// Norm is norm, for tests.
var Norm = norm

// MaxPending is maxPending, for tests.
const MaxPending = maxPending

// Normed is a ledger's normed (its buffer used by another text first),
// for tests.
func Normed(s string) string {
	var t Ledger
	t.normed("\u2003an  earlier\n text ")
	n, _ := t.normed(s)
	return string(n)
}
