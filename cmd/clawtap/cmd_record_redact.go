package main

import (
	"os"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/redact"
)

// recordRedactor builds the redaction record applies before anything
// touches disk: credentials always, content with --redact-content, nothing
// with --no-redact. It also returns the header's redaction info.
func (a *app) recordRedactor(f *recordFlags) (recRedactor, capture.Redaction, error) {
	if f.noRedact {
		return nil, capture.Redaction{Credentials: false, Content: false,
			Notes: []string{"recorded with --no-redact: credentials and content are as they came off the wire"}}, nil
	}
	var salt []byte
	if f.saltFile != "" {
		b, err := os.ReadFile(f.saltFile)
		if err != nil {
			return nil, capture.Redaction{}, usageError("check the path given to --salt-file", "read --salt-file: %v", err)
		}
		if len(b) == 0 {
			return nil, capture.Redaction{}, usageError("put some random bytes in it", "--salt-file %s is empty", f.saltFile)
		}
		salt = b
	}
	r := redact.New(redact.Options{Content: f.redactContent, Salt: salt})
	return r, r.Info(), nil
}
