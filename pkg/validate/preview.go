package validate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// previewRunes bounds a string value shown in a finding.
const previewRunes = 60

// preview shows the value at loc below inst (found at prefix in the
// frame): a scalar as JSON, clipped; an object or array by its size. A
// string goes through the recorder's credential redaction first, with the
// keys that lead to it, so a token in a capture recorded with --no-redact
// does not reach the terminal.
func (v *Validator) preview(inst any, prefix string, loc []string) string {
	val, ok := at(inst, loc)
	if !ok {
		return "absent"
	}
	switch x := val.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return human.Clip(x.String(), previewRunes)
	case string:
		return v.redactedString(x, prefix, loc)
	case map[string]any:
		return fmt.Sprintf("an object of %d field(s)", len(x))
	case []any:
		return fmt.Sprintf("an array of %d item(s)", len(x))
	}
	return fmt.Sprintf("a %T", val)
}

// at walks loc down a decoded JSON value.
func at(v any, loc []string) (any, bool) {
	for _, k := range loc {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// redactedString quotes s as the redactor would leave it under the object
// keys of its path (array indices are left out: the key rules look at
// names).
func (v *Validator) redactedString(s, prefix string, loc []string) string {
	var keys []string
	for _, k := range strings.Split(strings.TrimPrefix(prefix, "/"), "/") {
		if k != "" {
			keys = append(keys, k)
		}
	}
	for _, k := range loc {
		if !isIndex(k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		keys = []string{"value"}
	}
	var b []byte
	for _, k := range keys {
		b = append(b, '{')
		b = jsonx.AppendString(b, k)
		b = append(b, ':')
	}
	b = jsonx.AppendString(b, s)
	for range keys {
		b = append(b, '}')
	}
	out := v.red.Frame(capture.DirIn, b)
	if red, ok := jsonx.GetPath(out, keys...); ok {
		if r, ok := jsonx.Str(red); ok {
			s = r
		}
	}
	return strconv.Quote(human.Clip(s, previewRunes))
}
