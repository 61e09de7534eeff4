package clawboo

import (
	"regexp"
	"strings"

	"github.com/clawtap/clawtap/pkg/jsstr"
)

// The failure notice clawboo writes after 1211c16 (gatewayRunFailureText
// in apps/web/src/features/connection/useGatewayEvents.ts, index id
// 63463348634; its test at 59639f1): a run that failed without saying
// anything gets a system line that says why, or what to do.
const (
	noticeNoReason = "The run ended without reporting a result. The connection to the runtime may have dropped; try sending again."
	noticeOverflow = "This run stopped because the runtime believed it was out of context room. " +
		"That is usually a wrong context-window setting rather than a genuinely oversized prompt: " +
		"a runtime that resolves a small budget starts compacting early, and compaction cannot shrink tool definitions, " +
		"so it frees nothing and the turn fails again. " +
		"Check the model's real context window in Settings, and reduce how many connectors this agent is granted if its tool list has grown. " +
		"Starting a fresh session clears the conversation but not the cause."
	noticePrefix = "The run failed: "
)

// contextOverflow is clawboo's CONTEXT_OVERFLOW_RE, matched against the
// reason with its ASCII letters lowered: JavaScript's /i without the u flag
// folds ASCII alone (Go's (?i) would also take ſ for s and the Kelvin sign
// for k), and its \s is JavaScript's white space, not RE2's ASCII class.
var contextOverflow = regexp.MustCompile(`context[\t\n\v\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}_-]?(?:overflow|length|window|limit)` +
	`|(?:prompt|input) (?:is )?too (?:large|long)|maximum context|exceeds? (?:the )?(?:maximum )?context|too many tokens|reduce the length of the (?:messages|prompt)`)

// gatewayRunFailureText is the notice for a failed run's reason (a chat
// error's errorMessage; null or blank when it gave none).
func gatewayRunFailureText(reason string, has bool) string {
	trimmed := jsstr.Trim(reason)
	switch {
	case !has || trimmed == "":
		return noticeNoReason
	case contextOverflow.MatchString(lowerASCII(trimmed)):
		return noticeOverflow
	}
	return noticePrefix + trimmed
}

// lowerASCII lowers A–Z and leaves every other byte as it is.
func lowerASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}
