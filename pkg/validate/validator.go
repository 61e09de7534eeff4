package validate

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/check"
	"github.com/clawtap/clawtap/pkg/human"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/redact"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DefaultMaxPending is the default of Options.MaxPending.
const DefaultMaxPending = 4096

// Caps on what a Validator remembers besides pending requests.
const (
	maxNames      = 256  // unknown event and method names remembered for first occurrences
	maxUnchecked  = 256  // distinct keys of Summary.Unchecked; the rest count under "other"
	maxV3         = 1024 // v3 differences remembered for first occurrences
	maxAdvertised = 1024 // event names remembered from one hello-ok
)

// Options tune a Validator.
type Options struct {
	// MaxPending caps the requests remembered per connection while they
	// wait for their response; the oldest is forgotten first (and counted).
	// 0 means DefaultMaxPending.
	MaxPending int
	// PerFrame reports a field the schema does not declare at every frame
	// that has it; by default each is one finding at the end, with a count
	// (drift.go).
	PerFrame bool
}

// Summary counts what a Validator saw and found.
type Summary struct {
	Schema    string `json:"schema"` // which schema: "@openclaw/gateway-protocol 2026.9.1", or a path
	Records   int    `json:"records"`
	Frames    int    `json:"frames"`
	Validated int    `json:"validated"` // envelopes, payloads, params and results checked against a definition
	// Unchecked counts the parts of frames with nothing to check them
	// against, by "event NAME", "params METHOD" and "result METHOD".
	Unchecked map[string]int `json:"unchecked"`
	Errors    int            `json:"error"`
	Warnings  int            `json:"warn"`
	Infos     int            `json:"info"`
	ByRule    map[string]int `json:"rules"`
	// Unpaired counts responses whose request was not in the capture or
	// had been forgotten; Evicted counts requests forgotten unanswered
	// because too many were pending on their connection.
	Unpaired int `json:"unpairedResponses,omitempty"`
	Evicted  int `json:"evictedRequests,omitempty"`
	// V3Differences counts every difference found on protocol 3
	// connections; only the first of each is a finding.
	V3Differences int `json:"v3Differences,omitempty"`
	// PatternTimeouts counts pattern checks not made: matches that ran out
	// of time, and the values of a pattern given up on as too slow (each
	// given the benefit of the doubt; see regexp.go).
	PatternTimeouts int `json:"patternTimeouts,omitempty"`
	// SchemaVersion is the schema's package version, when known; Gateways
	// the releases the capture's hellos name; SchemaOlder says the schema
	// is older than one of them.
	SchemaVersion string   `json:"schemaVersion,omitempty"`
	Gateways      []string `json:"gateways,omitempty"`
	SchemaOlder   bool     `json:"schemaOlderThanGateway,omitempty"`
	// DriftFrames counts the frames with a field the schema does not
	// declare; each field is one finding (unless Options.PerFrame), and
	// past 1024 fields the rest are counted in DriftOverflow.
	DriftFrames   int `json:"driftFrames,omitempty"`
	DriftOverflow int `json:"driftOverflow,omitempty"`
}

// Count returns how many findings of at least severity min were made.
func (s *Summary) Count(min check.Severity) int {
	n := 0
	if min <= check.Error {
		n += s.Errors
	}
	if min <= check.Warn {
		n += s.Warnings
	}
	if min <= check.Info {
		n += s.Infos
	}
	return n
}

// Fold adds the findings counted here to a check summary, for check
// --schema: its severities and rules.
func (s *Summary) Fold(into *check.Summary) {
	into.Errors += s.Errors
	into.Warnings += s.Warnings
	into.Infos += s.Infos
	if into.ByRule == nil {
		into.ByRule = map[string]int{}
	}
	for id, n := range s.ByRule {
		into.ByRule[id] += n
	}
}

// Validator checks a capture record by record.
type Validator struct {
	s          *Schema
	maxPending int
	perFrame   bool
	drifts     map[string]*driftEntry // fields the schema does not declare, by definition and pointer
	driftOrder []string
	conns      map[int]*connState
	events     map[string]bool // unknown event names reported
	methods    map[string]bool // unknown method names reported
	v3         map[string]bool // v3 differences reported
	red        *redact.Redactor
	timeouts0  int64
	sum        Summary
	out        []check.Finding
	buf        []check.Finding

	reportTo func(f *check.Finding) error // the pass's (SetReport)
}

type connState struct {
	protocol   int
	release    string          // the gateway release its hello named
	advertised map[string]bool // events named by hello-ok features.events; nil before it
	pending    map[string]string
	order      []string // ids in the order requested, for forgetting the oldest
	head       int
	unpaired   bool // reported
	overflow   bool // reported
}

// New returns a Validator for schema s.
func New(s *Schema, opts Options) *Validator {
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	return &Validator{
		s:          s,
		maxPending: opts.MaxPending,
		perFrame:   opts.PerFrame,
		drifts:     map[string]*driftEntry{},
		conns:      map[int]*connState{},
		events:     map[string]bool{},
		methods:    map[string]bool{},
		v3:         map[string]bool{},
		red:        redact.New(redact.Options{}),
		timeouts0:  s.pats.skipped.Load(),
		sum:        Summary{Schema: s.Name, SchemaVersion: s.Version, Unchecked: map[string]int{}, ByRule: map[string]int{}},
	}
}

// Summary returns the counts so far.
func (v *Validator) Summary() Summary {
	s := v.sum
	s.PatternTimeouts = int(v.s.pats.skipped.Load() - v.timeouts0)
	return s
}

// Record validates one record and appends its findings to dst.
func (v *Validator) Record(dst []check.Finding, rec *capture.Record) []check.Finding {
	v.out = dst
	v.sum.Records++
	switch {
	case rec.Mark == capture.MarkHello:
		if rec.Protocol > 0 {
			v.conn(rec.Conn).protocol = rec.Protocol
		}
		v.noteRelease(v.conn(rec.Conn), rec.Server)
	case rec.Mark == capture.MarkClose:
		delete(v.conns, rec.Conn)
	case rec.Mark != "":
	case rec.IsFrame():
		v.frame(rec)
	case rec.Malformed:
		why := ""
		if rec.Err != "" {
			why = " (" + rec.Err + ")"
		}
		v.add(rec, RuleUnreadable, nil, fmt.Sprintf("Record %d (line %d) is not a readable capture line%s, so it cannot be validated.", rec.Index, rec.Line, why))
	default:
		v.add(rec, RuleUnreadable, nil, fmt.Sprintf("Record %d is a message that is not JSON (%d bytes), so it cannot be validated.", rec.Index, len(rec.Raw)))
	}
	return v.out
}

// Drift finishes the capture and appends its last findings to dst: each
// field the schema does not declare, once, with its count (unless
// Options.PerFrame).
func (v *Validator) Drift(dst []check.Finding) []check.Finding {
	v.out = dst
	v.driftFindings()
	return v.out
}

func (v *Validator) conn(n int) *connState {
	c := v.conns[n]
	if c == nil {
		c = &connState{pending: map[string]string{}}
		v.conns[n] = c
	}
	return c
}

// frameCtx is what the findings of one frame share.
type frameCtx struct {
	rec                     *capture.Record
	conn                    *connState
	typ                     string // req, res, event
	event                   string
	method                  string
	runID, agentID, session string
}

func (v *Validator) frame(rec *capture.Record) {
	v.sum.Frames++
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Frame))
	if err != nil {
		v.add(rec, RuleUnreadable, nil, fmt.Sprintf("Record %d holds a frame that does not decode (%v), so it cannot be validated.", rec.Index, err))
		return
	}
	m, _ := inst.(map[string]any)
	f := &frameCtx{rec: rec, conn: v.conn(rec.Conn)}
	f.typ, _ = m["type"].(string)
	body := m["payload"]
	switch f.typ {
	case "event":
		f.event, _ = m["event"].(string)
	case "req":
		f.method, _ = m["method"].(string)
		body = m["params"]
	case "res":
		id, _ := m["id"].(string)
		f.method = f.conn.pending[id]
	}
	if b, ok := body.(map[string]any); ok {
		f.runID, _ = b["runId"].(string)
		f.agentID, _ = b["agentId"].(string)
		f.session, _ = b["sessionKey"].(string)
	}
	v.check(f, v.s.frames[f.typ], inst, "")
	switch f.typ {
	case "event":
		v.event(f, m)
	case "req":
		v.request(f, m)
	case "res":
		v.response(f, m)
	}
	for _, p := range v.s.pats.drain() {
		if p == "" {
			v.add(rec, RulePatternTimeout, f, fmt.Sprintf("The schema's slow patterns have taken %v in all, so from record %d on no pattern is checked (each value given the benefit of the doubt, counted as patternTimeouts).", totalBudget, rec.Index))
			continue
		}
		v.add(rec, RulePatternTimeout, f, fmt.Sprintf("The schema's pattern %q ran out of time (%v for one value, or over %v on average) while record %d was checked: it backtracks without end on some values, so it is no longer checked (its values given the benefit of the doubt, counted as patternTimeouts).", human.Clip(p, 80), patternTimeout, slowAverage, rec.Index))
	}
}

func (v *Validator) event(f *frameCtx, m map[string]any) {
	if f.event == "" {
		return // the envelope said so
	}
	def := v.s.EventSchema(f.event)
	if def == "" {
		v.unchecked("event " + f.event)
		v.unknownEvent(f)
		return
	}
	payload, ok := m["payload"]
	if !ok {
		v.report(f, def, "/payload", nil, violation{keyword: "required", expected: "a payload", actual: "absent", absent: true})
		return
	}
	v.check(f, def, payload, "/payload")
}

func (v *Validator) request(f *frameCtx, m map[string]any) {
	if id, _ := m["id"].(string); id != "" {
		v.remember(f, id, f.method)
	}
	if f.method == "" {
		return
	}
	if !v.s.KnowsMethod(f.method) {
		v.unknownMethod(f)
	}
	def := v.s.ParamsSchema(f.method)
	params, ok := m["params"]
	if def == "" || !ok {
		v.unchecked("params " + f.method)
		return
	}
	v.check(f, def, params, "/params")
}

func (v *Validator) response(f *frameCtx, m map[string]any) {
	id, _ := m["id"].(string)
	payload, hasPayload := m["payload"]
	p, _ := payload.(map[string]any)
	if _, ok := f.conn.pending[id]; !ok {
		if t, _ := p["type"].(string); t == "hello-ok" {
			f.method = "connect" // the handshake's answer, its request not captured
		} else {
			v.unpaired(f, id)
			return
		}
	}
	if ok, _ := m["ok"].(bool); ok {
		if f.method == "connect" {
			v.hello(f.conn, p)
		}
		def := v.s.ResultSchema(f.method)
		if def == "" || !hasPayload {
			v.unchecked("result " + f.method)
		} else {
			v.check(f, def, payload, "/payload")
		}
	}
	// A two-phase method answers "accepted" first and its result later,
	// under the same id.
	if status, _ := p["status"].(string); status != "accepted" {
		delete(f.conn.pending, id)
	}
}

// hello notes what a hello-ok says about its connection: the protocol
// and the events the gateway advertises.
func (v *Validator) hello(c *connState, p map[string]any) {
	if n, ok := p["protocol"].(interface{ String() string }); ok {
		if k, err := strconv.Atoi(n.String()); err == nil {
			c.protocol = k
		}
	}
	if server, ok := p["server"].(map[string]any); ok {
		if r, ok := server["version"].(string); ok {
			v.noteRelease(c, r)
		}
	}
	c.advertised = map[string]bool{}
	feats, _ := p["features"].(map[string]any)
	evs, _ := feats["events"].([]any)
	for _, e := range evs {
		if s, ok := e.(string); ok && len(c.advertised) < maxAdvertised {
			c.advertised[s] = true
		}
	}
}

// remember keeps a request's method until its response, forgetting the
// oldest request of the connection when too many wait.
func (v *Validator) remember(f *frameCtx, id, method string) {
	c := f.conn
	if _, ok := c.pending[id]; !ok {
		for len(c.pending) >= v.maxPending && c.head < len(c.order) {
			old := c.order[c.head]
			c.head++
			if _, ok := c.pending[old]; ok {
				delete(c.pending, old)
				v.sum.Evicted++
				if !c.overflow {
					c.overflow = true
					v.add(f.rec, RulePendingOverflow, f, fmt.Sprintf("More than %d requests waited for their response on connection %d; the oldest (id %s) was forgotten, and its response will not be checked.", v.maxPending, f.rec.Conn, strconv.Quote(human.Clip(old, 40))))
				}
			}
		}
		c.order = append(c.order, id)
		if len(c.order)-c.head > 2*len(c.pending)+64 {
			c.compact()
		}
	}
	c.pending[id] = method
}

// compact drops from the request order the ids already answered (and
// repeats), so that it stays as small as the pending table.
func (c *connState) compact() {
	seen := make(map[string]bool, len(c.pending))
	kept := c.order[:0]
	for _, id := range c.order[c.head:] {
		if _, ok := c.pending[id]; ok && !seen[id] {
			seen[id] = true
			kept = append(kept, id)
		}
	}
	clear(c.order[len(kept):])
	c.order, c.head = kept, 0
}

func (v *Validator) unpaired(f *frameCtx, id string) {
	v.sum.Unpaired++
	v.unchecked("result (request not captured)")
	if f.conn.unpaired {
		return
	}
	f.conn.unpaired = true
	v.add(f.rec, RuleUnpaired, f, fmt.Sprintf("Response id %s on connection %d answers no request in the capture (it began mid-connection, or the request was forgotten), so its result is not checked; later ones on this connection are only counted.", strconv.Quote(human.Clip(id, 40)), f.rec.Conn))
}

func (v *Validator) unknownEvent(f *frameCtx) {
	if v.events[f.event] || len(v.events) >= maxNames {
		return
	}
	v.events[f.event] = true
	why := ""
	switch {
	case f.conn.advertised == nil:
	case f.conn.advertised[f.event]:
		why = "; the gateway advertises it in hello-ok"
	default:
		why = "; the gateway did not advertise it in hello-ok"
	}
	v.add(f.rec, RuleUnknownEvent, f, fmt.Sprintf("Event %s has no payload schema in %s (first occurrence%s), so its payloads are not checked.", strconv.Quote(human.Clip(f.event, 80)), v.s.Name, why))
}

func (v *Validator) unknownMethod(f *frameCtx) {
	if v.methods[f.method] || len(v.methods) >= maxNames {
		return
	}
	v.methods[f.method] = true
	v.add(f.rec, RuleUnknownMethod, f, fmt.Sprintf("Method %s is not in %s (first occurrence), so its params and results are not checked.", strconv.Quote(human.Clip(f.method, 80)), v.s.Name))
}

func (v *Validator) unchecked(key string) {
	if _, ok := v.sum.Unchecked[key]; !ok && len(v.sum.Unchecked) >= maxUnchecked {
		key = "other"
	}
	v.sum.Unchecked[key]++
}

// check validates inst, found at prefix in the frame, against definition
// def ("" for the schema's root).
func (v *Validator) check(f *frameCtx, def string, inst any, prefix string) {
	sch, err := v.s.compile(def)
	if err != nil {
		v.unchecked("definition " + orRoot(def) + " (does not compile)")
		return
	}
	v.sum.Validated++
	err = sch.Validate(inst)
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	var vs []violation
	if errors.As(err, &ve) {
		vs = violations(ve)
		sortViolations(vs)
	}
	if len(vs) == 0 {
		vs = []violation{{keyword: "", expected: "a value the schema accepts"}}
	}
	for _, vi := range vs {
		v.report(f, def, prefix, inst, vi)
	}
}

// report turns one violation into a finding.
func (v *Validator) report(f *frameCtx, def, prefix string, inst any, vi violation) {
	ptr := prefix + pointer(vi.loc)
	actual := vi.actual
	if actual == "" {
		actual = v.preview(inst, prefix, vi.loc)
	}
	where := ptr
	if where == "" {
		where = "the frame"
	}
	var detail string
	switch {
	case vi.absent:
		detail = where + " is required but absent"
	case vi.extra:
		detail = where + " is not in the schema (it holds " + actual + ")"
	default:
		detail = where + " must be " + vi.expected + ", got " + actual
	}
	msg := fmt.Sprintf("%s, checked against %s: %s.", subject(f, prefix), orRoot(def), detail)
	rule := RuleViolation
	if vi.extra {
		rule = RuleExtraField
	}
	if f.conn.protocol == 3 {
		key := v3Key(f.rec.Conn, def, ptr, vi)
		v.sum.V3Differences++
		if v.v3[key] || len(v.v3) >= maxV3 {
			return
		}
		v.v3[key] = true
		rule = RuleV3Difference
		msg = fmt.Sprintf("On protocol 3 connection %d: %s%s (later ones like it on this connection are only counted)", f.rec.Conn, strings.TrimSuffix(msg, "."), v3Why(def, ptr, vi))
		msg += "."
	}
	fi := v.finding(f.rec, rule, f, msg)
	fi.Schema = orRoot(def)
	if def == "" {
		fi.Schema = "(root)"
	}
	fi.Pointer = ptr
	fi.Keyword = vi.keyword
	fi.Expected = vi.expected
	fi.Actual = actual
	if rule == RuleExtraField && !v.perFrame {
		v.drift(f, fi, orRoot(def), ptr)
		return
	}
	v.emit(fi)
}

// subject names the part of the frame that was checked.
func subject(f *frameCtx, prefix string) string {
	switch prefix {
	case "/payload":
		if f.typ == "event" {
			return "Payload of event " + strconv.Quote(human.Clip(f.event, 80))
		}
		return "Result of " + strconv.Quote(human.Clip(f.method, 80))
	case "/params":
		return "Params of " + strconv.Quote(human.Clip(f.method, 80))
	}
	switch f.typ {
	case "event":
		return "Event frame " + strconv.Quote(human.Clip(f.event, 80))
	case "req":
		return "Request frame " + strconv.Quote(human.Clip(f.method, 80))
	case "res":
		return "Response frame"
	}
	return "Frame"
}

// pointer renders a location as a JSON pointer (RFC 6901).
func pointer(loc []string) string {
	var b strings.Builder
	for _, s := range loc {
		b.WriteByte('/')
		b.WriteString(escapeToken(s))
	}
	return b.String()
}

func (v *Validator) finding(rec *capture.Record, rule string, f *frameCtx, msg string) check.Finding {
	fi := check.Finding{Rule: rule, Severity: severity(rule), I: rec.Index, T: rec.T, Conn: rec.Conn, Message: msg}
	if f != nil {
		fi.RunID, fi.AgentID, fi.SessionKey = f.runID, f.agentID, f.session
		fi.Event, fi.Method = f.event, f.method
	}
	return fi
}

func (v *Validator) add(rec *capture.Record, rule string, f *frameCtx, msg string) {
	v.emit(v.finding(rec, rule, f, msg))
}

func (v *Validator) emit(fi check.Finding) {
	switch fi.Severity {
	case check.Error:
		v.sum.Errors++
	case check.Warn:
		v.sum.Warnings++
	default:
		v.sum.Infos++
	}
	v.sum.ByRule[fi.Rule]++
	v.out = append(v.out, fi)
}

// Needs: the validator reads records only; it is an observer of the pass
// (validate, check --schema) that reports each finding to the pass.
func (v *Validator) Needs() pipeline.Needs { return 0 }

// SetReport takes the pass's report function.
func (v *Validator) SetReport(report func(*check.Finding) error) { v.reportTo = report }

// After validates the record and reports its findings.
func (v *Validator) After(f *pipeline.Frame) error {
	return v.hand(v.Record(v.buf[:0], f.Rec))
}

// End reports the schema drift of the capture (Drift).
func (v *Validator) End(*pipeline.End) error {
	return v.hand(v.Drift(v.buf[:0]))
}

// hand hands the findings to the pass, keeping their buffer.
func (v *Validator) hand(fs []check.Finding) error {
	v.buf = fs
	if v.reportTo == nil {
		return nil
	}
	for i := range fs {
		if err := v.reportTo(&fs[i]); err != nil {
			return err
		}
	}
	return nil
}
