// Command clawtap records, replays and debugs the OpenClaw Gateway's
// WebSocket event stream. See README.md and docs/.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
