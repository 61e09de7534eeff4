package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/human"
)

// writeKeyed writes one JSON line holding v under key: {"key":v}.
func writeKeyed(w io.Writer, key string, v any) error {
	b, err := json.Marshal(map[string]any{key: v})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Field is one named value of a summary, in the order printed.
type Field struct {
	Key   string // the JSON key (camelCase)
	Label string // the table's label
	Value any    // a string, a number or a bool
}

// Summary prints a command's closing summary (record's, serve's): json is
// one {"<name>":{…}} line with the fields in order, table a two-column
// table, text the command's own sentence.
func Summary(w io.Writer, format Format, name, text string, fields []Field) error {
	switch format {
	case JSON:
		var b bytes.Buffer
		b.WriteString(`{"` + name + `":{`)
		for k, f := range fields {
			if k > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(f.Key)
			val, err := json.Marshal(f.Value)
			if err != nil {
				return err
			}
			b.Write(key)
			b.WriteByte(':')
			b.Write(val)
		}
		b.WriteString("}}\n")
		_, err := w.Write(escapeUnsafe(b.Bytes()))
		return err
	case Table:
		var sb strings.Builder
		p := &statsPrinter{w: &sb, table: true}
		rows := make([][]string, len(fields))
		for k, f := range fields {
			rows[k] = []string{f.Label, valueText(f.Value)}
		}
		p.rows([]string{name, ""}, rows)
		if p.err != nil {
			return p.err
		}
		_, err := io.WriteString(w, human.Text(sb.String()))
		return err
	}
	_, err := io.WriteString(w, human.Printable(text)+"\n")
	return err
}

func valueText(v any) string {
	if s, ok := v.(string); ok {
		return human.Printable(s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// escapeUnsafe escapes in JSON text the runes that act on a terminal
// and that encoding/json leaves as they are (C1 controls, bidirectional
// controls), so that a summary line read on a terminal acts on nothing and
// still reads back as the same strings.
func escapeUnsafe(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r >= utf8.RuneSelf && human.Unsafe(r) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			out = fmt.Appendf(out, `\u%04x`, r)
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}
