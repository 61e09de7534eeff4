//go:build race

package record

// raceEnabled: the race detector slows the recorder ~10x and multiplies
// its memory; throughput and memory tests then move less data.
const raceEnabled = true
