//go:build race

package main

// recRaceEnabled: the race detector slows the recorder ~10x; the
// throughput test then records fewer frames.
const recRaceEnabled = true
