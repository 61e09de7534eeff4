package claw3d

import (
	"encoding/json"

	"github.com/clawtap/clawtap/pkg/ui"
)

// js marshals a test value to JSON.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type obj = map[string]any

// mainKey is the main session of agent main.
const mainKey = "agent:main:main"

// ps is a set ui.Str.
func ps(s string) ui.Str { return ui.SetStr(s) }
