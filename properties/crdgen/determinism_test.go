package crdgen

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// TestSameSeedSameObjects: two generators built from the same CRD draw
// the same objects for the same seed, and different seeds draw different
// objects.
func TestSameSeedSameObjects(t *testing.T) {
	for _, f := range crdFiles {
		t.Run(f.name, func(t *testing.T) {
			v := loadCRD(t, f.path, f.version)
			a, b := newGen(t, v).Object("default", ""), newGen(t, loadCRD(t, f.path, f.version)).Object("default", "")
			distinct := map[string]bool{}
			for seed := range 30 {
				x, y := a.Example(seed), b.Example(seed)
				if !reflect.DeepEqual(x, y) {
					t.Fatalf("seed %d: %v then %v", seed, x, y)
				}
				distinct[jsonKey(x)] = true
			}
			if len(distinct) < 20 {
				t.Fatalf("30 seeds drew only %d distinct objects", len(distinct))
			}
		})
	}
}

// TestSameRapidSeedSameObjects: under rapid.Check, -rapid.seed replays
// the same sequence of objects, which is what a failure's replay command
// relies on.
func TestSameRapidSeedSameObjects(t *testing.T) {
	setFlags(t, "rapid.seed", "42", "rapid.checks", "20")
	g := newGen(t, loadCRD(t, crdFiles[1].path, crdFiles[1].version))
	run := func() []map[string]any {
		var objs []map[string]any
		rapid.Check(t, func(rt *rapid.T) {
			objs = append(objs, g.Object("default", "w").Draw(rt, "object"))
		})
		return objs
	}
	first, second := run(), run()
	if len(first) != 20 || !reflect.DeepEqual(first, second) {
		t.Fatalf("seed 42 drew\n%v\nthen\n%v", first, second)
	}
}
