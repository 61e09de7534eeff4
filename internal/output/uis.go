package output

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// UIVersion is one modelled UI version, as 'clawtap uis' lists it.
type UIVersion struct {
	UI replay.UI
	// Newest: NAME alone means this version; Default: the UI replayed
	// when none is named.
	Newest, Default bool
}

// UIs lists the UI models: json is a line per version; text groups the
// versions under their UI; table is a row per version.
func UIs(w io.Writer, format Format, style Style, list []UIVersion) error {
	switch format {
	case JSON:
		for _, u := range list {
			v := u.UI.Version
			b, err := json.Marshal(struct {
				Ref     string `json:"ui"`
				Name    string `json:"name"`
				Version string `json:"version"`
				Title   string `json:"title"`
				Newest  bool   `json:"newest"`
				Default bool   `json:"default"`
				Bills   bool   `json:"bills"`
				Source  string `json:"source"`
				Summary string `json:"summary"`
			}{u.UI.String(), v.UI, v.Name, v.Title, u.Newest, u.Default, v.Bills, v.Source, v.Summary})
			if err != nil {
				return err
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
		return nil
	case Table:
		t := tablewriter.NewTable(w, tablewriter.WithConfig(tablewriter.NewConfigBuilder().WithHeaderAutoFormat(tw.Off).Build()))
		t.Header([]string{"ui", "newest", "what it does differently", "source"})
		for _, u := range list {
			newest := ""
			switch {
			case u.Default:
				newest = "yes (default)"
			case u.Newest:
				newest = "yes"
			}
			t.Append([]string{style.Paint(u.UI.String(), Bold...), newest, human.Clip(u.UI.Version.Summary, 60), human.Clip(u.UI.Version.Source, 50)})
		}
		return t.Render()
	}
	var b strings.Builder
	for i, u := range list {
		v := u.UI.Version
		if i == 0 || list[i-1].UI.Version.UI != v.UI {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(style.Paint(v.Title, Bold...) + " (--ui " + v.UI + ")\n")
		}
		mark := ""
		switch {
		case u.Default:
			mark = " (newest; the default)"
		case u.Newest:
			mark = " (newest)"
		}
		b.WriteString("  " + style.Paint(u.UI.String(), Bold...) + mark + "\n")
		b.WriteString("    " + v.Summary + "\n")
		b.WriteString("    source: " + v.Source + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
