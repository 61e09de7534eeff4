package message

import "strings"

// joiner joins strings with "\n" the way Array#join does, without copying
// when there is only one: the common case of a message with a single text
// block keeps the decoded string as it is.
type joiner struct {
	first string
	b     *strings.Builder
	n     int
}

func (j *joiner) add(s string) {
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

// String returns the joined strings ("" when none was added).
func (j *joiner) String() string {
	if j.n <= 1 {
		return j.first
	}
	return j.b.String()
}
