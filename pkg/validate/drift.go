package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clawtap/clawtap/pkg/check"
	gw "github.com/clawtap/clawtap/pkg/release"
)

// Schema drift: a field the schema does not declare where it lists the
// fields (schema-extra-field) is a fact about the gateway's release, not
// about one frame: a 2026.9.6 gateway adds agentId to every agent event
// against the 2026.9.1 schema. So validate reports each such field once
// per definition and JSON pointer (array indices as *), at the end of the
// capture, with how many frames had it, the first of them (the finding's
// record) and the gateway releases that sent it; Options.PerFrame keeps
// a finding per frame. The summary names the schema's version and the
// capture's releases and says when the schema is older.

// maxDrift bounds the fields remembered; past it they are only counted.
const maxDrift = 1024

type driftEntry struct {
	first    check.Finding
	count    int
	last     int
	releases []string // the releases of the connections that sent it, in order seen
}

// drift counts one extra field; its finding waits for the end.
func (v *Validator) drift(f *frameCtx, fi check.Finding, def, ptr string) {
	key := def + " " + normPointer(ptr)
	e := v.drifts[key]
	if e == nil {
		if len(v.drifts) >= maxDrift {
			v.sum.DriftOverflow++
			return
		}
		e = &driftEntry{first: fi}
		v.drifts[key] = e
		v.driftOrder = append(v.driftOrder, key)
	}
	e.count++
	e.last = f.rec.Index
	v.sum.DriftFrames++
	if r := f.conn.release; r != "" && !slices.Contains(e.releases, r) && len(e.releases) < 8 {
		e.releases = append(e.releases, r)
	}
}

// driftFindings makes the drift findings, in the order their fields were
// first seen.
func (v *Validator) driftFindings() {
	for _, key := range v.driftOrder {
		e := v.drifts[key]
		fi := e.first
		fi.Count = e.count
		frames := "in 1 frame"
		if e.count > 1 {
			frames = fmt.Sprintf("in %d frames, records %d to %d", e.count, fi.I, e.last)
		}
		from := "a gateway that named no release"
		if len(e.releases) > 0 {
			from = "gateway " + strings.Join(e.releases, ", ")
		}
		fi.Message = fmt.Sprintf("%s: %s, from %s%s.", strings.TrimSuffix(fi.Message, "."), frames, from, v.vintage(e.releases))
		v.emit(fi)
	}
	clear(v.drifts)
	v.driftOrder = v.driftOrder[:0]
}

// vintage says, as a clause, whether the schema is older than the
// releases named.
func (v *Validator) vintage(releases []string) string {
	sv, ok := gw.Parse(v.s.Version)
	if !ok {
		return ""
	}
	for _, r := range releases {
		if gv, ok := gw.Parse(r); ok && sv.Core().Before(gv.Core()) {
			return fmt.Sprintf("; the schema (%s) is older than the gateway, which sends fields it does not declare", sv.Core())
		}
	}
	return ""
}

// releases notes the release a hello names, for the summary.
func (v *Validator) noteRelease(c *connState, r string) {
	if r == "" {
		return
	}
	c.release = r
	if !slices.Contains(v.sum.Gateways, r) && len(v.sum.Gateways) < 16 {
		v.sum.Gateways = append(v.sum.Gateways, r)
	}
	if sv, ok := gw.Parse(v.s.Version); ok {
		if gv, ok := gw.Parse(r); ok && sv.Core().Before(gv.Core()) {
			v.sum.SchemaOlder = true
		}
	}
}
