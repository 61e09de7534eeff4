package outcome

import (
	"github.com/clawtap/clawtap/pkg/jsonx"
)

// jsonReason reads an intent's "reason".
func jsonReason(b []byte) string {
	s, _ := jsonx.GetStr(b, "reason")
	return s
}
