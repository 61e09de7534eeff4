package runs

// Field is what one observer keeps of every run: a *T per run, made the
// first time the observer asks for it, forgotten when the run is let go.
// An observer gets its Field from the table before the pass starts; the
// zero Field is none, and using it is a bug.
type Field[T any] struct{ k int } // the field's index in Run.fields, plus one

// NewField gives an observer its place in every run of t. Fields are
// made before the table's first run is born.
func NewField[T any](t *Table) Field[T] {
	if t.born > 0 {
		panic("runs: a field made after the first run was born")
	}
	t.fields++
	return Field[T]{k: t.fields}
}

// Of is what the observer keeps of r, made empty on first use.
func (f Field[T]) Of(r *Run) *T {
	if v, ok := r.fields[f.k-1].(*T); ok {
		return v
	}
	v := new(T)
	r.fields[f.k-1] = v
	return v
}

// Peek is what the observer keeps of r, or nil when it kept nothing.
func (f Field[T]) Peek(r *Run) *T {
	v, _ := r.fields[f.k-1].(*T)
	return v
}
