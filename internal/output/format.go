package output

import (
	"fmt"
	"strings"
)

// Format is how a command prints: json is NDJSON, one object per line,
// with the schema each command documents; text is a readable report; table
// is aligned columns.
type Format string

// The formats every printing command accepts.
const (
	JSON  Format = "json"
	Text  Format = "text"
	Table Format = "table"
)

// Formats lists the format names, for help and shell completion.
var Formats = []string{string(JSON), string(Text), string(Table)}

// ParseFormat reads a --format value; "" is valid and means the default.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case "", JSON, Text, Table:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q: use %s", s, strings.Join(Formats, ", "))
}

// Resolve picks the format: the one asked for, else human (text or table,
// per command) when the output is a terminal, else json.
func Resolve(asked Format, terminal bool, human Format) Format {
	switch {
	case asked != "":
		return asked
	case terminal:
		return human
	}
	return JSON
}
