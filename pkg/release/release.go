// Package release knows the OpenClaw gateway's releases: how a capture
// names one (hello-ok's server.version, the hello marker, the header's
// source.gatewayVersion), how two compare, and which release changed the
// wire how without changing the protocol number (gateway-protocol §11).
// The protocol stays 4 from 2026.8 to 2026.9.8, so a capture's release, not
// its protocol, says which of these shapes its frames may have.
//
// It is pure: versions are parsed from strings, nothing is looked up.
package release

import (
	"strconv"
	"strings"
)

// Version is a gateway release as npm numbers it: CalVer without zero
// padding, YYYY.M.D, maybe with a prerelease suffix ("2026.7.2-beta.5").
// The zero value is an unknown release.
type Version struct {
	Year, Month, Day int
	Pre              string // the prerelease suffix, without its dash
}

// Parse reads a release. "dev", "unknown", "" and anything not of the
// shape YYYY.M.D[-pre] are not releases: ok is false. A build id that
// starts with one ("2026.9.6-release-eb377ac") reads as that release
// with a suffix; Core drops the suffix.
func Parse(s string) (v Version, ok bool) {
	s = strings.TrimSpace(s)
	core, pre, _ := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return Version{}, false
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 4 || i > 0 && len(p) > 2 {
			return Version{}, false
		}
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || p[0] == '+' {
			return Version{}, false
		}
		n[i] = x
	}
	if n[0] < 1000 || n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > 99 {
		return Version{}, false
	}
	return Version{Year: n[0], Month: n[1], Day: n[2], Pre: pre}, true
}

// MustParse is Parse for the releases this package names; it panics on a
// string that is not one.
func MustParse(s string) Version {
	v, ok := Parse(s)
	if !ok {
		panic("release: not a release: " + s)
	}
	return v
}

// Known reports whether v is a release (not the zero value).
func (v Version) Known() bool { return v.Year != 0 }

// Core is v without its prerelease suffix.
func (v Version) Core() Version { return Version{Year: v.Year, Month: v.Month, Day: v.Day} }

// String renders v as npm does; "" for an unknown release.
func (v Version) String() string {
	if !v.Known() {
		return ""
	}
	s := strconv.Itoa(v.Year) + "." + strconv.Itoa(v.Month) + "." + strconv.Itoa(v.Day)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare orders releases: -1 when v is older than w, 0 when they are the
// same, 1 when v is newer. A prerelease comes before its release; two
// prereleases of one release compare by their suffix as text. An unknown
// release is older than every known one.
func (v Version) Compare(w Version) int {
	for _, d := range [3]int{v.Year - w.Year, v.Month - w.Month, v.Day - w.Day} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	case v.Pre < w.Pre:
		return -1
	}
	return 1
}

// AtLeast reports whether v is known and no older than w.
func (v Version) AtLeast(w Version) bool { return v.Known() && v.Compare(w) >= 0 }

// Before reports whether v is known and older than w.
func (v Version) Before(w Version) bool { return v.Known() && v.Compare(w) < 0 }
