package output

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize knows: SI units are powers of 1000,
// IEC units powers of 1024, as in `sort -S`, curl and most storage tools.
var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12},
	{"b", 1},
}

// ParseSize reads a size: a bare number is bytes; 50kB, 50MB, 50GB are
// powers of 1000 (50MB = 50×10^6); 50KiB, 50MiB, 50GiB powers of 1024
// (50MiB = 50×2^20); k, M, G alone mean kB, MB, GB. Units are not case
// sensitive and may follow a space; a decimal point is allowed (1.5GB).
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || strings.ContainsAny(t, "eEnNxX+") || n < 0 || math.IsInf(n, 0) {
		return 0, fmt.Errorf("%q is not a size: use bytes, or a number with kB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024)", s)
	}
	v := n * mult
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v), nil
}

// FormatSize renders a byte count for people, in the units ParseSize reads
// back: 999 B, 1.5 kB, 20 MB (powers of 1000).
func FormatSize(n int64) string {
	if n < 1000 && n > -1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	f := float64(n)
	for _, u := range []string{"kB", "MB", "GB", "TB"} {
		f /= 1000
		if f < 999.95 && f > -999.95 || u == "TB" {
			return strconv.FormatFloat(f, 'f', decimals(f), 64) + " " + u
		}
	}
	return ""
}

// decimals keeps three significant digits: 1.23, 12.3, 123.
func decimals(f float64) int {
	switch a := math.Abs(f); {
	case a < 9.995:
		return 2
	case a < 99.95:
		return 1
	}
	return 0
}
