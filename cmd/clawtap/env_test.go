package main

import (
	"bytes"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
)

// testEnv is an Env for calling a run function directly: empty stdin,
// stdout and stderr in buffers, no terminal, and the environment getenv
// gives (none for nil).
func testEnv(getenv map[string]string) (*cli.Env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	e := cli.NewEnv(strings.NewReader(""), &stdout, &stderr)
	e.IsTerminal = func(any) bool { return false }
	e.LookupEnv = func(k string) (string, bool) { v, ok := getenv[k]; return v, ok }
	return e, &stdout, &stderr
}
