// Package e2e holds clawtap's end-to-end tests against a real OpenClaw
// gateway. They are behind the e2e build tag:
//
//	bash scripts/e2e-setup.sh                 # installs Node 24 + openclaw (cached)
//	go test -tags e2e -v -timeout 20m ./e2e/
//
// The suite runs scripts/e2e-setup.sh itself when the install is missing,
// starts a fake OpenAI-compatible model (internal/fakemodel) and the gateway
// on loopback with isolated HOME/state/tmp directories, drives it with
// pkg/gateway, records with the clawtap binary built from this tree, and
// stops everything it started by process group at the end.
//
// TestOTLPExportToCollector also starts an OpenTelemetry Collector built
// from the upstream collector modules pinned in e2e/otelcol (a module of
// its own): scripts/otelcol-setup.sh builds it into the same cache, once
// per source.
//
// Environment: CLAWTAP_E2E_CACHE (install cache, default
// ~/.cache/clawtap-e2e), CLAWTAP_E2E_KEEP=1 keeps the run directory (logs,
// captures) for inspection.
package e2e
