package otlp

import (
	"fmt"
	"net/url"
	"strings"
)

// ParseResourceAttributes reads OTEL_RESOURCE_ATTRIBUTES: key=value pairs
// separated by commas, each key and value percent-decoded (a comma or an
// equals sign in one must be encoded), all values strings. As the SDK
// specification asks (resource/sdk.md), any error discards the whole
// value: the caller reports it and goes on without. A key given twice
// keeps its last value, in its first place.
func ParseResourceAttributes(s string) ([]KeyValue, error) {
	var out []KeyValue
	at := map[string]int{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not key=value", clip(pair, 64))
		}
		key, err := url.PathUnescape(strings.TrimSpace(k))
		if err != nil || key == "" {
			return nil, fmt.Errorf("key %q is not percent-encoded text", clip(k, 64))
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %s is not percent-encoded text", clip(key, 64))
		}
		if k, ok := at[key]; ok {
			out[k].Value = val
			continue
		}
		at[key] = len(out)
		out = append(out, KeyValue{key, val})
	}
	return out, nil
}

// GenAIOptIn reports whether OTEL_SEMCONV_STABILITY_OPT_IN (a comma
// separated list) asks for the latest experimental GenAI conventions,
// the switch OpenClaw names its spans by.
func GenAIOptIn(s string) bool {
	for _, v := range strings.Split(s, ",") {
		if strings.TrimSpace(v) == "gen_ai_latest_experimental" {
			return true
		}
	}
	return false
}
