package replay

import (
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
