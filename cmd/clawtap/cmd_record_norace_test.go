//go:build !race

package main

const recRaceEnabled = false
