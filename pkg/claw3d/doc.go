// Package claw3d models Claw3D's runtime event pipeline (pipeline-spec §4)
// as pure Go: no clock, no goroutines, no I/O. This first part holds
// Claw3D's message extraction ([C3D] differences from pkg/message) and
// its agent-stream helpers.
package claw3d
