// Package gctune sets converge's garbage collection target. converge's
// heap is small (a few hundred MB with thousands of objects) and its work
// is CPU-bound: encoding, copying and etcd's own allocations. At Go's
// default GOGC of 100 the running driver spent about an eighth of its CPU
// collecting; at 400 about a twentieth, for about 1.8x the peak memory.
package gctune

import (
	"os"
	"runtime/debug"
)

// Percent is converge's GOGC when the environment sets none.
const Percent = 400

// Apply sets the collection target to Percent unless the GOGC environment
// variable is set, which is then left in force, and returns the target.
func Apply() int {
	if os.Getenv("GOGC") != "" {
		current := debug.SetGCPercent(100)
		debug.SetGCPercent(current)
		return current
	}
	debug.SetGCPercent(Percent)
	return Percent
}
