// Command otelcol-e2e is the smallest OpenTelemetry Collector clawtap's
// end-to-end suite needs: the OTLP receiver (OTLP/HTTP on loopback) and
// the file exporter, built from the upstream collector modules at one
// pinned release (go.mod). The suite builds it once into its cache
// (scripts/otelcol-setup.sh), starts it with config.yaml, sends it
// clawtap's export and compares what it wrote with clawtap's file.
//
// It lives in a module of its own so that the collector's dependencies
// never reach clawtap's go.mod; the module's pdatacheck package reads
// clawtap's OTLP/JSON with the collector's own pdata unmarshaler.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// factories is the collector's parts: one receiver, one exporter, and
// the telemetry factory the service insists on.
func factories() (otelcol.Factories, error) {
	recv, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exp, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{Receivers: recv, Exporters: exp, Telemetry: otelconftelemetry.NewFactory()}, nil
}

func main() {
	// The env provider is needed twice over: ${env:…} in config.yaml, and
	// the command's default scheme (env) must name a provider.
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol-e2e", Description: "clawtap's e2e collector: OTLP in, file out", Version: "e2e"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}
