package gctune

import (
	"runtime/debug"
	"testing"
)

func TestApplyDefaultsButRespectsGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	t.Setenv("GOGC", "")
	debug.SetGCPercent(100)
	if got := Apply(); got != Percent || debug.SetGCPercent(100) != Percent {
		t.Fatalf("no GOGC: Apply() = %d, want %d in force", got, Percent)
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150) // as the runtime does from the variable at start
	if got := Apply(); got != 150 || debug.SetGCPercent(150) != 150 {
		t.Fatalf("GOGC=150: Apply() = %d, want 150 left in force", got)
	}
}
