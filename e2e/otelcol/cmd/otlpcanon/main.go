// Command otlpcanon prints the spans of OTLP JSON Lines files in
// canonical form (package canon): one span a line, sorted by trace and
// span id. The e2e suite compares clawtap's export with what the
// collector wrote through it.
//
//	otlpcanon FILE...
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/clawtap/clawtap/e2e/otelcol/canon"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: otlpcanon FILE...")
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "otlpcanon:", err)
			os.Exit(2)
		}
		spans, err := canon.Read(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "otlpcanon: %s: %v\n", path, err)
			os.Exit(1)
		}
		for _, s := range spans {
			fmt.Fprintln(w, s.JSON)
		}
	}
}
