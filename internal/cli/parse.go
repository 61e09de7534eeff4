package cli

import (
	"strings"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/replay"
)

// ParseFormat checks a --format value: json, text, table, or one of the
// command's extra formats (test: junit); a bad one is a usage error.
func ParseFormat(s string, extra ...output.Format) (output.Format, error) {
	for _, x := range extra {
		if strings.EqualFold(s, string(x)) {
			return x, nil
		}
	}
	format, err := output.ParseFormat(s)
	if err != nil {
		names := strings.Join(output.Formats, "|")
		for _, x := range extra {
			names += "|" + string(x)
		}
		return "", Usage("use --format "+names, "%v", err)
	}
	return format, nil
}

// ParseUI checks --ui.
func ParseUI(s string) (string, error) {
	ui, err := replay.ParseUI(s)
	if err != nil {
		return "", Usage("use --ui "+strings.Join(replay.UIs, "|"), "%v", err)
	}
	return ui, nil
}
