package clawboo

import (
	"regexp"
	"strings"
	"testing"
)

// The cases of clawboo's gatewayRunFailureText.test.ts at 59639f1 (index
// id 63584236847), and what JavaScript's trim, \s and ASCII-only /i make
// of the edges.
func TestGatewayRunFailureText(t *testing.T) {
	f := func(s string) string { return gatewayRunFailureText(s, true) }
	null := gatewayRunFailureText("", false)

	// reports the reason the runtime gave, worded like the server does
	if got := f("rate limited"); got != "The run failed: rate limited" {
		t.Errorf("a reason: %q", got)
	}
	// says what to do when the runtime gave no reason at all
	if !strings.Contains(null, "try sending again") || strings.Contains(null, "unknown error") {
		t.Errorf("no reason: %q", null)
	}
	// treats blank and whitespace as no reason rather than printing an empty one
	if f("") != null || f("   ") != null {
		t.Errorf("blank: %q, %q", f(""), f("   "))
	}
	// a context-overflow label: explains the likely cause instead of repeating the label
	raw := "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model."
	got := f(raw)
	for _, no := range []string{"/reset", "prompt too large"} {
		if strings.Contains(got, no) {
			t.Errorf("overflow notice repeats %q: %q", no, got)
		}
	}
	for _, re := range []string{`(?i)context-window setting`, `(?i)tool definitions`, `(?i)clears the conversation but not the cause`} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("overflow notice lacks %s: %q", re, got)
		}
	}
	// catches the phrasings other providers use for the same condition
	for _, p := range []string{"prompt is too long: 210000 tokens > 200000 maximum", "This model's maximum context length is 32768 tokens", "Please reduce the length of the messages",
		"context_window exceeded", "CONTEXT-LIMIT reached", "input too large", "Context\u00a0overflow"} {
		if f(p) != noticeOverflow {
			t.Errorf("%q is a context overflow: %q", p, f(p))
		}
	}
	// leaves an unrelated failure verbatim, so real errors still reach the user
	if got := f("ECONNREFUSED 127.0.0.1:18789"); got != "The run failed: ECONNREFUSED 127.0.0.1:18789" {
		t.Errorf("unrelated: %q", got)
	}
	// JavaScript's trim: white space, NBSP and the BOM go, the reason is kept.
	if got := f("  rate limited \n"); got != "The run failed: rate limited" {
		t.Errorf("trimmed: %q", got)
	}
	if got := f("\ufeff\u00a0rate limited"); got != "The run failed: rate limited" {
		t.Errorf("BOM and NBSP: %q", got)
	}
	// /i without the u flag folds ASCII alone: ſ is not s, nor K (the Kelvin sign) k.
	for _, p := range []string{"too many tokenſ", "prompt iſ too long", "too many \u212aokens"} {
		if f(p) == noticeOverflow {
			t.Errorf("%q matched as JavaScript would not", p)
		}
	}
}
