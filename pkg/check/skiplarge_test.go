package check

import "testing"

// skipLarge skips a test whose size, not its concurrency, makes it slow
// under the race detector: make test's race stage runs with -short, and
// its long stage runs what that stage skipped, without the detector.
func skipLarge(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("large: make test's long stage runs it, without the race detector")
	}
}
