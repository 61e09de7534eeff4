package output

import "testing"

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1000", 1000}, {"50MB", 50_000_000}, {"50MiB", 50 << 20}, {"50mb", 50_000_000},
		{"64k", 64_000}, {"64KiB", 64 << 10}, {"1.5GB", 1_500_000_000}, {"2 GiB", 2 << 30},
		{"20M", 20_000_000}, {"7B", 7}, {"1kB", 1000},
	} {
		got, err := ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "MB", "-1", "ten", "1e3", "0x10", "1.5.2MB", "NaN", "Inf", "99999999999TB"} {
		if n, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, n)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1.00 kB"}, {1536, "1.54 kB"}, {20_000_000, "20.0 MB"},
		{123_456_789, "123 MB"}, {999_999, "1.00 MB"},
	} {
		if got := FormatSize(c.in); got != c.want {
			t.Errorf("FormatSize(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"50MB", "1.5GiB", "", "k", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
	})
}
