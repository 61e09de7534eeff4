package cli

import (
	"strings"

	"github.com/clawtap/clawtap/internal/output"
	"github.com/clawtap/clawtap/pkg/models"
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

// ParseUI checks --ui: NAME or NAME@VERSION ("" is the default UI).
func ParseUI(s string) (replay.UI, error) {
	ui, err := models.Lookup(s)
	if err != nil {
		return replay.UI{}, Usage("use --ui NAME[@VERSION]: "+strings.Join(models.Names(), ", ")+" ('clawtap uis' lists the versions)", "%v", err)
	}
	return ui, nil
}

// ParseUIs checks a list of UIs (--ui A,B or all).
func ParseUIs(names []string) ([]replay.UI, error) {
	uis, err := models.LookupList(names)
	if err != nil {
		return nil, Usage("use --ui NAME[@VERSION],… or all: "+strings.Join(models.Names(), ", ")+" ('clawtap uis' lists the versions)", "%v", err)
	}
	return uis, nil
}
