package replay

import (
	"errors"
	"math"
	"slices"
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

// ParseUIs reads a list of UI names, or "all" for every one: each name
// once, in the order of UIs. No names is nil.
func ParseUIs(names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var uis []string
	for _, n := range names {
		if n == "all" {
			return slices.Clone(UIs), nil
		}
		ui, err := ParseUI(strings.TrimSpace(n))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(uis, ui) {
			uis = append(uis, ui)
		}
	}
	slices.SortFunc(uis, func(x, y string) int { return slices.Index(UIs, x) - slices.Index(UIs, y) })
	return uis, nil
}

// UIPairs lists every UI name, then every pair of two different ones as
// "a,b": what a flag that compares two UIs completes.
func UIPairs() []string {
	c := slices.Clone(UIs)
	for _, a := range UIs {
		for _, b := range UIs {
			if a != b {
				c = append(c, a+","+b)
			}
		}
	}
	return c
}
