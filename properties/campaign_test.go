package properties

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
)

// runsKey is a run without its wall time: what must be equal across shards
// and processes.
func runsKey(runs []Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprintf("%d %d %d %x %v", r.Index, r.Seed, r.Actions, r.Digest, r.Failed))
	}
	return out
}

func TestShardsTogetherRunTheWholeCampaign(t *testing.T) {
	c := Campaign{Checks: 30, Steps: 20, Seed: 5, Faults: true}
	whole, err := c.Run()
	if err != nil || whole.Failure != nil || len(whole.Runs) != 30 {
		t.Fatalf("whole campaign: %v, %+v", err, whole.Failure)
	}
	var union []Run
	for i := 1; i <= 4; i++ {
		s := c
		s.Shard = Shard{Index: i, Count: 4}
		out, err := s.Run()
		if err != nil || out.Failure != nil {
			t.Fatalf("shard %d: %v %+v", i, err, out.Failure)
		}
		if out.Checks != len(s.Shard.Indices(30)) {
			t.Fatalf("shard %d ran %d checks, want %d", i, out.Checks, len(s.Shard.Indices(30)))
		}
		union = append(union, out.Runs...)
	}
	slices.SortFunc(union, func(a, b Run) int { return a.Index - b.Index })
	if got, want := runsKey(union), runsKey(whole.Runs); !slices.Equal(got, want) {
		t.Fatalf("union of 4 shards:\n%v\nwhole:\n%v", got, want)
	}
	seen := map[uint64]bool{}
	for _, r := range whole.Runs {
		seen[r.Digest] = true
	}
	if len(seen) < 20 {
		t.Fatalf("only %d distinct runs in 30 checks: seeds are not spread", len(seen))
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"0/4", "5/4", "1", "a/b", "1/0", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	s, err := ParseShard("2/4")
	if err != nil || s != (Shard{2, 4}) || s.String() != "2/4" || !slices.Equal(s.Indices(10), []int{1, 5, 9}) {
		t.Fatalf("2/4: %+v %v %v", s, err, s.Indices(10))
	}
}

// TestCampaignsRunConcurrently runs three campaigns with different settings
// (a passing model one, a mutant that fails and shrinks, a lockstep one)
// alone and then all at once: each must give the same outcome both ways.
func TestCampaignsRunConcurrently(t *testing.T) {
	dir := t.TempDir()
	stepped := func(d model.Decisions) (*cluster.Stepped, error) {
		return cluster.NewStepped(cluster.SteppedConfig{Store: storetest.Store(t), Decisions: d})
	}
	cs := []Campaign{
		{Checks: 40, Steps: 40, Seed: 11, Faults: true, TracePath: filepath.Join(dir, "a.jsonl")},
		{Checks: 1000, Steps: 60, Seed: 3, Faults: true, Decisions: decide.ReplicaSetNoExpectations,
			ShrinkTime: 5 * time.Minute, TracePath: filepath.Join(dir, "b.jsonl")},
		{Checks: 3, Steps: 15, Seed: 9, Target: TargetLockstep, NewStepped: stepped, TracePath: filepath.Join(dir, "c.jsonl")},
	}
	key := func(o Outcome) string {
		return fmt.Sprintf("%d %v %+v %s", o.Checks, runsKey(o.Runs), o.Failure, o.Script)
	}
	alone := make([]string, len(cs))
	for i, c := range cs {
		o, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = key(o)
		if (i == 1) != (o.Failure != nil) {
			t.Fatalf("campaign %d: failure %+v (only the mutant must fail)", i, o.Failure)
		}
	}
	together := make([]string, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() {
			o, err := c.Run()
			if err != nil {
				t.Error(err)
			}
			together[i] = key(o)
		})
	}
	wg.Wait()
	for i := range cs {
		if alone[i] != together[i] {
			t.Errorf("campaign %d alone:\n%s\nconcurrently:\n%s", i, alone[i], together[i])
		}
	}
}

// TestOneCheckIsRapidsCheckOnItsSeed: a campaign's check draws what
// rapid.Check draws with -rapid.seed=SEED -rapid.checks=1, so that command
// replays (and rapid shrinks) any check of any shard under go test.
func TestOneCheckIsRapidsCheckOnItsSeed(t *testing.T) {
	seed := CheckSeed(42, 7)
	draw := func(rt *rapid.T, into *[]int) {
		for i := 0; i < 20; i++ {
			*into = append(*into, rapid.IntRange(0, 1000).Draw(rt, "n"))
		}
		if rapid.Bool().Draw(rt, "b") {
			*into = append(*into, -1)
		}
	}
	var ours, theirs []int
	_, _, err := runSeed(seed, func(rt *rapid.T) (struct{}, error) { draw(rt, &ours); return struct{}{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	restore := SetRapidFlags(t, map[string]string{"rapid.seed": strconv.FormatUint(seed, 10), "rapid.checks": "1"})
	rapid.Check(t, func(rt *rapid.T) { draw(rt, &theirs) })
	restore()
	if !slices.Equal(ours, theirs) || len(ours) < 20 {
		t.Fatalf("campaign drew %v, rapid.Check drew %v", ours, theirs)
	}
}

func TestAFailingCheckReportsAPanicAsAFailure(t *testing.T) {
	_, invalid, err := runSeed(1, func(rt *rapid.T) (int, error) { panic("boom") })
	if err == nil || err.Error() != "boom" || invalid {
		t.Fatalf("err %v, invalid %v", err, invalid)
	}
	_, _, err = runSeed(1, func(rt *rapid.T) (int, error) { rt.Fatalf("bad %d", 3); return 0, nil })
	if err == nil || err.Error() != "bad 3" {
		t.Fatalf("Fatalf: err %v", err)
	}
	_, invalid, err = runSeed(1, func(rt *rapid.T) (int, error) { rt.Skip("nothing"); return 0, nil })
	if err != nil || !invalid {
		t.Fatalf("Skip: err %v invalid %v", err, invalid)
	}
}

// TestRunLengthAveragesSteps: the campaign's Steps is the mean number of
// random actions, as rapid.steps is for Repeat.
func TestRunLengthAveragesSteps(t *testing.T) {
	for _, steps := range []int{10, 50} {
		total := 0
		for i := range 2000 {
			n, _, _ := runSeed(CheckSeed(1, i), func(rt *rapid.T) (int, error) { return drawLength(rt, steps), nil })
			total += n
		}
		if mean := float64(total) / 2000; mean < 0.85*float64(steps) || mean > 1.15*float64(steps) {
			t.Fatalf("steps %d: mean run length %.1f", steps, mean)
		}
	}
}
