package replay

import (
	"strings"
	"testing"
)

func TestParseFrameMs(t *testing.T) {
	for in, want := range map[string][2]uint64{"1000/60": {1000, 60}, " 50 / 3 ": {50, 3}, "16.7": {16700, 1000}, "0.001": {1, 1000}} {
		if n, d, err := ParseFrameMs(in); err != nil || n != want[0] || d != want[1] {
			t.Errorf("%q → %d/%d %v, want %v", in, n, d, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1/0", "0/5", "x", "Inf", "NaN", "1e7", "0.0001"} {
		if _, _, err := ParseFrameMs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseUIs(t *testing.T) {
	if uis, err := ParseUIs([]string{UIClaw3D, " " + UIClawboo, UIClaw3D}); err != nil || strings.Join(uis, ",") != UIClawboo+","+UIClaw3D {
		t.Errorf("%v %v", uis, err)
	}
	if uis, _ := ParseUIs([]string{UIClaw3D, "all"}); len(uis) != len(UIs) {
		t.Errorf("all: %v", uis)
	}
	if uis, err := ParseUIs(nil); uis != nil || err != nil {
		t.Errorf("none: %v %v", uis, err)
	}
	if _, err := ParseUIs([]string{"nope"}); err == nil {
		t.Error("unknown UI accepted")
	}
	if got := strings.Join(UIPairs(), " "); got != "clawboo claw3d clawboo,claw3d claw3d,clawboo" {
		t.Errorf("pairs %s", got)
	}
}
