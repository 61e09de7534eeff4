// Package models lists the chat UI models clawtap replays, and finds one
// by the name a user gives: NAME (its newest version) or NAME@VERSION.
// Adding a UI is a package of its own and one line in all.
package models

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/models/claw3d"
	"github.com/clawtap/clawtap/pkg/models/clawboo"
	"github.com/clawtap/clawtap/pkg/models/controlui"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/ui"
)

// all are the models, the default first.
var all = []replay.Model{
	clawboo.Model{},
	claw3d.Model{},
	controlui.Model{},
}

// Names lists the models' names, the default first.
func Names() []string {
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = newest(m).UI
	}
	return names
}

func newest(m replay.Model) ui.Version {
	vs := m.Versions()
	return vs[len(vs)-1]
}

// Default is the UI replayed when none is named: clawboo, newest.
func Default() replay.UI { return replay.UI{Model: all[0], Version: newest(all[0])} }

// All lists every version of every model: models in order, each one's
// versions oldest first.
func All() []replay.UI {
	var out []replay.UI
	for _, m := range all {
		for _, v := range m.Versions() {
			out = append(out, replay.UI{Model: m, Version: v})
		}
	}
	return out
}

// Newest lists each model's newest version, the default first.
func Newest() []replay.UI {
	out := make([]replay.UI, len(all))
	for i, m := range all {
		out[i] = replay.UI{Model: m, Version: newest(m)}
	}
	return out
}

// Lookup finds the UI a user names: NAME is that UI's newest version,
// NAME@VERSION that version (a commit may be given by any prefix of four
// or more characters that names one version); "" is the default.
func Lookup(s string) (replay.UI, error) {
	if strings.TrimSpace(s) == "" {
		return Default(), nil
	}
	ref, err := ui.ParseRef(s)
	if err != nil {
		return replay.UI{}, err
	}
	for _, m := range all {
		vs := m.Versions()
		if vs[0].UI != ref.UI {
			continue
		}
		if ref.Version == "" {
			return replay.UI{Model: m, Version: vs[len(vs)-1]}, nil
		}
		var found []ui.Version
		for _, v := range vs {
			if v.Name == ref.Version || len(ref.Version) >= 4 && strings.HasPrefix(v.Name, ref.Version) {
				found = append(found, v)
			}
		}
		if len(found) == 1 {
			return replay.UI{Model: m, Version: found[0]}, nil
		}
		return replay.UI{}, fmt.Errorf("unknown version %q of %s: use %s", ref.Version, ref.UI, versionList(vs))
	}
	return replay.UI{}, fmt.Errorf("unknown UI %q: use %s (clawtap uis lists them with their versions)", ref.UI, strings.Join(Names(), ", "))
}

// LookupPinned finds a UI version as a file names it (an expectation
// file's section, a golden's final state): NAME@VERSION that version,
// and NAME alone the UI's first modelled version, which is what a file
// written before clawtap modelled versions meant.
func LookupPinned(s string) (replay.UI, error) {
	ref, err := ui.ParseRef(s)
	if err != nil {
		return replay.UI{}, err
	}
	if ref.Version != "" {
		return Lookup(s)
	}
	for _, m := range all {
		if vs := m.Versions(); vs[0].UI == ref.UI {
			return replay.UI{Model: m, Version: vs[0]}, nil
		}
	}
	return Lookup(s) // its error
}

// Order compares two UIs by their place in All.
func Order(a, b replay.UI) int { order := All(); return index(order, a) - index(order, b) }

func versionList(vs []ui.Version) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.String()
	}
	return strings.Join(names, ", ")
}

// LookupList reads a list of UIs: each element NAME, NAME@VERSION, or
// "all" for every version of every model; each UI once, in the order of
// All. No names is nil.
func LookupList(names []string) ([]replay.UI, error) {
	var out []replay.UI
	add := func(u replay.UI) {
		if !slices.ContainsFunc(out, func(x replay.UI) bool { return x.Version == u.Version }) {
			out = append(out, u)
		}
	}
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			part = strings.TrimSpace(part)
			if strings.EqualFold(part, "all") {
				for _, u := range All() {
					add(u)
				}
				continue
			}
			u, err := Lookup(part)
			if err != nil {
				return nil, err
			}
			add(u)
		}
	}
	order := All()
	slices.SortStableFunc(out, func(a, b replay.UI) int { return index(order, a) - index(order, b) })
	return out, nil
}

func index(list []replay.UI, u replay.UI) int {
	return slices.IndexFunc(list, func(x replay.UI) bool { return x.Version == u.Version })
}

// MustLookup is Lookup for a name known to be right (tests, examples); it
// panics on an unknown one.
func MustLookup(s string) replay.UI {
	u, err := Lookup(s)
	if err != nil {
		panic(err)
	}
	return u
}
