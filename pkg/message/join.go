package message

import "strings"

// Joiner joins strings with "\n" the way Array#join does, for the rules
// that join text blocks or thinking parts, without copying when there is
// only one: the common case of a message with a single text block keeps
// the decoded string as it is. The zero value is empty and ready to use.
type Joiner struct {
	first string
	b     *strings.Builder
	n     int
}

// Add appends s (which may be empty: it still counts, as in Array#join).
func (j *Joiner) Add(s string) {
	switch j.n {
	case 0:
		j.first = s
	case 1:
		j.b = &strings.Builder{}
		j.b.Grow(len(j.first) + 1 + len(s))
		j.b.WriteString(j.first)
		fallthrough
	default:
		j.b.WriteByte('\n')
		j.b.WriteString(s)
	}
	j.n++
}

// Len is the number of strings added.
func (j *Joiner) Len() int { return j.n }

// String returns the joined strings ("" when none was added).
func (j *Joiner) String() string {
	if j.n <= 1 {
		return j.first
	}
	return j.b.String()
}
