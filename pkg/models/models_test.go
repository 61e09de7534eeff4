package models_test

import (
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

func names(uis []replay.UI) string {
	var s []string
	for _, u := range uis {
		s = append(s, u.String())
	}
	return strings.Join(s, ",")
}

func TestLookup(t *testing.T) {
	def := models.Default()
	if def.Version.UI != "clawboo" || def != models.MustLookup("clawboo") || def != models.MustLookup("") {
		t.Fatalf("default %v", def)
	}
	for in, want := range map[string]string{
		"claw3d":          "claw3d@eeb6f31",
		" Claw3D ":        "claw3d@eeb6f31",
		"claw3d@eeb6f31":  "claw3d@eeb6f31",
		"claw3d@eeb6":     "claw3d@eeb6f31", // a commit by a prefix of four or more
		"clawboo@1211c16": "clawboo@1211c16",
	} {
		u, err := models.Lookup(in)
		if err != nil || u.String() != want {
			t.Errorf("Lookup(%q) = %v %v, want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"nope", "claw3d@", "@eeb6f31", "claw3d@eeb", "claw3d@nope", "clawboo@1211c16x"} {
		if u, err := models.Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) = %v, want an error", bad, u)
		}
	}
	if _, err := models.Lookup("nope"); err == nil || !strings.Contains(err.Error(), "clawboo, claw3d") {
		t.Errorf("unknown UI: %v", err)
	}
}

// A file that names a UI without a version was written before clawtap
// modelled versions: it means the UI's first version, whatever is newest.
func TestLookupPinned(t *testing.T) {
	for _, u := range models.Newest() {
		first := u.Model.Versions()[0]
		got, err := models.LookupPinned(u.Version.UI)
		if err != nil || got.Version != first {
			t.Errorf("LookupPinned(%q) = %v %v, want %v", u.Version.UI, got, err, first)
		}
		if got, err := models.LookupPinned(u.String()); err != nil || got != u {
			t.Errorf("LookupPinned(%q) = %v %v", u.String(), got, err)
		}
	}
}

func TestLookupList(t *testing.T) {
	uis, err := models.LookupList([]string{"claw3d", " clawboo@1211c16", "claw3d@eeb6f31"})
	if err != nil || names(uis) != "clawboo@1211c16,claw3d@eeb6f31" {
		t.Errorf("%v %v", names(uis), err)
	}
	if uis, _ := models.LookupList([]string{"claw3d", "all"}); names(uis) != names(models.All()) {
		t.Errorf("all: %v", names(uis))
	}
	if uis, err := models.LookupList([]string{"clawboo,claw3d"}); err != nil || len(uis) != 2 {
		t.Errorf("a comma list: %v %v", names(uis), err)
	}
	if uis, err := models.LookupList(nil); uis != nil || err != nil {
		t.Errorf("none: %v %v", uis, err)
	}
	if _, err := models.LookupList([]string{"nope"}); err == nil {
		t.Error("unknown UI accepted")
	}
}

// Every version names its UI, a source, and what it does differently;
// each model's versions share its name and have distinct names.
func TestVersionsDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, u := range models.All() {
		v := u.Version
		if v.UI == "" || v.Name == "" || v.Title == "" || v.Source == "" || v.Summary == "" {
			t.Errorf("%s: incomplete %+v", u, v)
		}
		if seen[u.String()] {
			t.Errorf("%s twice", u)
		}
		seen[u.String()] = true
		if l := u.Layout(); l.TranscriptCap <= 0 || len(l.RequestKinds) == 0 {
			t.Errorf("%s: layout %+v", u, l)
		}
	}
}
