// Package validate checks the frames of a capture against the gateway
// protocol's published JSON Schema (npm @openclaw/gateway-protocol): each
// frame's envelope (req, res, event), each event's payload by event name,
// each request's params and each response's result by method, pairing a
// response to its request by id on its connection.
//
// It produces pkg/check's Finding values, with the rule ids below, so its
// findings can be printed on their own (clawtap validate) or folded into
// check's. A snapshot of the schema is built in (Embedded); Load reads
// another one. Memory is bounded: per connection, the requests waiting for
// their response (Options.MaxPending), nothing kept per frame.
package validate

import (
	"slices"

	"github.com/clawtap/clawtap/pkg/check"
)

// Rule ids. They are stable: tools may match on them.
const (
	RuleViolation       = "schema-violation"
	RuleExtraField      = "schema-extra-field"
	RuleUnknownEvent    = "schema-unknown-event"
	RuleUnknownMethod   = "schema-unknown-method"
	RuleUnpaired        = "schema-unpaired-response"
	RulePendingOverflow = "schema-pending-overflow"
	RuleV3Difference    = "schema-v3-difference"
	RuleUnreadable      = "schema-unreadable"
	RulePatternTimeout  = "schema-pattern-timeout"
)

// Group is the group of validate's rules in check.Rule.
const Group = "schema"

var rules = []check.Rule{
	{ID: RuleViolation, Severity: check.Error, Default: true, Group: Group, Summary: "a field of a frame violates the schema: wrong type, a required field missing, a value outside the allowed set, length or range (envelope, event payload, request params or response result)"},
	{ID: RuleExtraField, Severity: check.Warn, Default: true, Group: Group, Summary: "a field the schema does not allow where it lists the fields (additionalProperties: false): the sender is newer than the schema, or adds fields it does not declare"},
	{ID: RuleUnknownEvent, Severity: check.Info, Default: true, Group: Group, Summary: "an event with no payload schema (first occurrence of each name), saying whether the gateway advertised it; its payloads are not checked"},
	{ID: RuleUnknownMethod, Severity: check.Info, Default: true, Group: Group, Summary: "a method the schema does not know (first occurrence of each name); its params and results are not checked"},
	{ID: RuleUnpaired, Severity: check.Info, Default: true, Group: Group, Summary: "a response whose request is not in the capture, so its result cannot be checked (first on each connection; all are counted)"},
	{ID: RulePendingOverflow, Severity: check.Warn, Default: true, Group: Group, Summary: "more requests waited for their response on a connection than validate remembers; the oldest were forgotten (first on each connection; all are counted)"},
	{ID: RuleV3Difference, Severity: check.Info, Default: true, Group: Group, Summary: "on a protocol 3 connection, a frame differs from the schema, which describes protocol 4 (first of each difference on each connection; all are counted)"},
	{ID: RuleUnreadable, Severity: check.Warn, Default: true, Group: Group, Summary: "a record that is not a JSON frame (a non-JSON message, an unreadable line) and cannot be validated"},
	{ID: RulePatternTimeout, Severity: check.Warn, Default: true, Group: Group, Summary: "a pattern of the schema took too long to match (catastrophic backtracking) and is no longer checked; or the slow patterns' time ran out and none is (once each; the skipped checks are counted)"},
}

// Rules returns validate's rules, in documentation order.
func Rules() []check.Rule { return slices.Clone(rules) }

func severity(id string) check.Severity {
	for _, r := range rules {
		if r.ID == id {
			return r.Severity
		}
	}
	return check.Info
}
