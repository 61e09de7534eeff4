package release

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"2026.9.7", "2026.9.7", true},
		{" 2026.9.10 ", "2026.9.10", true},
		{"2026.7.2-beta.5", "2026.7.2-beta.5", true},
		{"2026.9.6-release-eb377ac", "2026.9.6-release-eb377ac", true},
		{"dev", "", false},
		{"unknown", "", false},
		{"", "", false},
		{"2026.9", "", false},
		{"2026.13.1", "", false},
		{"2026.0.1", "", false},
		{"2026.09.007", "", false},
		{"+2026.9.6", "", false},
		{"2026.9.6.1", "", false},
		{"v2026.9.6", "", false},
	} {
		v, ok := Parse(c.in)
		if ok != c.ok || v.String() != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", c.in, v.String(), ok, c.want, c.ok)
		}
	}
}

func TestCompare(t *testing.T) {
	order := []string{"2026.4.15", "2026.5.7", "2026.7.2-beta.5", "2026.7.2", "2026.9.2", "2026.9.6", "2026.9.7", "2026.9.10", "2027.1.1"}
	for i, a := range order {
		for j, b := range order {
			got := MustParse(a).Compare(MustParse(b))
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got != want {
				t.Errorf("%s vs %s: %d, want %d", a, b, got, want)
			}
		}
	}
	var unknown Version
	if unknown.AtLeast(V2026_9_2) || unknown.Before(V2026_9_2) {
		t.Error("an unknown release is neither at least nor before a release")
	}
	if !MustParse("2026.9.6-release-eb377ac").Core().AtLeast(V2026_9_6) {
		t.Error("a build id's core is its release")
	}
}

func TestChanges(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range Changes {
		if seen[c.ID] || c.Wire == "" || c.Hazard == "" || !c.Since.Known() {
			t.Errorf("change %d (%s) is incomplete or repeated", i, c.ID)
		}
		seen[c.ID] = true
		if i > 0 && c.Since.Compare(Changes[i-1].Since) < 0 {
			t.Errorf("change %s is out of release order", c.ID)
		}
	}
	if Since(AppendOnly) != "2026.9.7" || Since("nope") != "" {
		t.Errorf("Since: %q, %q", Since(AppendOnly), Since("nope"))
	}
}
