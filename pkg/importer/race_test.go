//go:build race

package importer

// raceEnabled: the race detector slows the importer several times and
// changes how much it allocates; time and memory bounds are not checked.
const raceEnabled = true
