package reshape

import (
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/jsonx"
	"github.com/clawtap/clawtap/pkg/release"
)

// helloOK is what reshape reads from a hello-ok response.
type helloOK struct {
	payload    []byte
	version    string
	hasVersion bool
	versionRaw []byte // the value of server.version, a slice of the frame
	bootID     string
	protocol   int64
}

// readHelloOK reads a res frame whose payload is a hello-ok.
func readHelloOK(frame []byte) (helloOK, bool) {
	if !jsonx.StrIs(mustGet(frame, "type"), "res") {
		return helloOK{}, false
	}
	p, ok := jsonx.Get(frame, "payload")
	if !ok || !jsonx.StrIs(mustGet(p, "type"), "hello-ok") {
		return helloOK{}, false
	}
	h := helloOK{payload: p}
	h.protocol, _ = jsonx.GetInt(p, "protocol")
	server := mustGet(p, "server")
	if v, ok := jsonx.Get(server, "version"); ok {
		h.versionRaw = v
		h.version, h.hasVersion = jsonx.Str(v)
	}
	h.bootID, _ = jsonx.GetStr(server, "bootId")
	return h, true
}

// decide settles the input's release from its first hello, else its
// header, and refuses what reshape does not rewrite.
func (r *run) decide(in *capture.Header) error {
	v := r.first
	if v == "" && in != nil {
		v = in.Source.GatewayVersion
	}
	r.from = v
	if v == "" {
		r.warn(-1, 0, false, "the capture names no gateway release (no hello, no header): reshaped anyway; only deltas that prove to be appends are rewritten")
		return nil
	}
	return r.accept(v, -1)
}

// accept checks a release a hello names (at record i, -1 for the
// capture's own).
func (r *run) accept(v string, i int) error {
	where := "the capture's gateway"
	if i >= 0 {
		where = "a hello at record " + itoa(i)
	}
	ver, ok := release.Parse(v)
	switch {
	case !ok:
		if !r.unknownWarned {
			r.unknownWarned = true
			r.warn(i, 0, false, "gateway release "+quote(v)+" is not a release number: reshaped anyway; only deltas that prove to be appends are rewritten")
		}
		return nil
	case ver.Core().AtLeast(release.V2026_9_7):
		return &RefusedError{Reason: where + " is " + v + ": its live text is append-only already",
			Hint: "reshape writes the " + r.to + " wire from a 2026.9.6 capture"}
	case ver.Core().Compare(release.V2026_9_6) == 0:
		return nil
	case r.opts.Force:
		if !r.forcedWarned {
			r.forcedWarned = true
			r.warn(i, 0, false, where+" is "+v+", not 2026.9.6: reshaped as --force asks, with its own live-text shapes; the fixes between "+v+" and 2026.9.6 are not added")
		}
		return nil
	}
	older := ver.Core().AtLeast(release.V2026_9_2)
	hint := "reshape rewrites captures of 2026.9.6 (forced: of 2026.9.2 to 2026.9.5)"
	if older {
		hint = "force it to reshape a capture of 2026.9.2 to 2026.9.5 anyway: their live text has 2026.9.6's shape; the fixes between them are not added"
	}
	return &RefusedError{Reason: where + " is " + v + ", not 2026.9.6", Hint: hint, Older: older}
}

// hello rewrites a hello-ok: server.version names the target, and the
// tasks.* methods and the task event leave its feature lists.
func (r *run) hello(rec *capture.Record, h helloOK, cs *connState) error {
	cs.bootID = h.bootID
	if h.protocol == 3 {
		return &RefusedError{Reason: "record " + itoa(rec.Index) + " is a protocol 3 hello-ok: its frames differ from the " + r.to + " wire in more than live text",
			Hint: "reshape rewrites protocol 4 captures of 2026.9.6"}
	}
	if h.hasVersion {
		if err := r.accept(h.version, rec.Index); err != nil {
			return err
		}
	}
	frame := rec.Frame
	changed := false
	if h.versionRaw != nil && h.hasVersion {
		if out, ok := replaceValue(frame, h.versionRaw, jsonx.AppendString(nil, r.to)); ok {
			frame, changed = out, true
		}
	}
	feats := mustGet(mustGet(frame, "payload"), "features")
	if m, ok := jsonx.Get(feats, "methods"); ok {
		if out, n, ok := filterStrings(frame, m, func(s string) bool { return strings.HasPrefix(s, "tasks.") }); ok && n > 0 {
			frame, changed = out, true
		}
	}
	feats = mustGet(mustGet(frame, "payload"), "features")
	if e, ok := jsonx.Get(feats, "events"); ok {
		if out, n, ok := filterStrings(frame, e, func(s string) bool { return s == "task" }); ok && n > 0 {
			frame, changed = out, true
		}
	}
	if changed {
		rec.Frame = frame
		r.res.Hellos++
	}
	return nil
}
