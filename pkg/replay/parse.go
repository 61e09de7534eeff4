package replay

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ErrFrameMs is the error of a frame period that is not a positive number
// of ms or a fraction.
var ErrFrameMs = errors.New("not a positive number of ms (16.7) or a fraction (1000/60)")

// ParseFrameMs reads an animation frame period, "16.7" or "1000/60" ms, as
// the fraction num/den of ms that Options.FrameNum and FrameDen take; a
// decimal keeps microseconds.
func ParseFrameMs(s string) (num, den uint64, err error) {
	if n, d, ok := strings.Cut(s, "/"); ok {
		num, err1 := strconv.ParseUint(strings.TrimSpace(n), 10, 32)
		den, err2 := strconv.ParseUint(strings.TrimSpace(d), 10, 32)
		if err1 != nil || err2 != nil || num == 0 || den == 0 {
			return 0, 0, ErrFrameMs
		}
		return num, den, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0) || f > 1e6 || math.IsInf(f, 0) {
		return 0, 0, ErrFrameMs
	}
	num = uint64(math.Round(f * 1000))
	if num == 0 {
		return 0, 0, ErrFrameMs
	}
	return num, 1000, nil
}
