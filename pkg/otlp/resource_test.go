package otlp_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/clawtap/clawtap/pkg/otlp"
)

func TestParseResourceAttributes(t *testing.T) {
	got, err := otlp.ParseResourceAttributes(" deployment.environment.name = ci , team=ui%2Cweb,a%3Db=1, ,team=clients")
	want := []otlp.KeyValue{{"deployment.environment.name", "ci"}, {"team", "clients"}, {"a=b", "1"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%v %v, want %v", got, err, want)
	}
	for _, bad := range []string{"novalue", "=x", "k=%zz", "%zz=v"} {
		if _, err := otlp.ParseResourceAttributes(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if !otlp.GenAIOptIn("http,gen_ai_latest_experimental") || otlp.GenAIOptIn("gen_ai") {
		t.Error("GenAIOptIn")
	}
}

// FuzzParseResourceAttributes: the environment is untrusted text; it
// parses or not, and what parses has no empty key.
func FuzzParseResourceAttributes(f *testing.F) {
	f.Add("a=b,c=d%2C")
	f.Add("%=,=")
	f.Fuzz(func(t *testing.T, s string) {
		kvs, err := otlp.ParseResourceAttributes(s)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, kv := range kvs {
			if kv.Key == "" || seen[kv.Key] || strings.TrimSpace(kv.Key) != kv.Key && !strings.Contains(s, "%") {
				t.Fatalf("%q: %v", s, kvs)
			}
			seen[kv.Key] = true
		}
	})
}
