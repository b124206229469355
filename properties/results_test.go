package properties

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// goTestShard runs prop through Check as shard s of a go-test campaign
// and returns its results file and what it reported.
func goTestShard(t *testing.T, shard string, prop func(*rapid.T)) (CheckResults, *Report) {
	path := filepath.Join(t.TempDir(), "r.json")
	t.Setenv(ShardEnv, shard)
	t.Setenv(SeedEnv, "77")
	t.Setenv(ReportEnv, path)
	rep := NewReport("TestProp")
	Check(rep, prop)
	r, err := ReadResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r, rep
}

func TestGoTestShardsTogetherRunEveryCheckOnce(t *testing.T) {
	defer SetRapidFlags(t, map[string]string{"rapid.checks": "25"})()
	// 64 unbiased bits tell the checks apart.
	bits := rapid.SliceOfN(rapid.Bool(), 64, 64)
	seen := map[string]int{}
	prop := func(rt *rapid.T) { seen[fmt.Sprint(bits.Draw(rt, "x"))]++ }
	var parts []CheckResults
	for i := 1; i <= 3; i++ {
		r, rep := goTestShard(t, fmt.Sprintf("%d/3", i), prop)
		if rep.Failed() || !r.OK() {
			t.Fatalf("shard %d: %+v\n%s", i, r, rep.Text())
		}
		parts = append(parts, r)
	}
	var whole []string
	for i := range 25 {
		_, _, _ = runSeed(CheckSeed(77, i), func(rt *rapid.T) (struct{}, error) {
			whole = append(whole, fmt.Sprint(bits.Draw(rt, "x")))
			return struct{}{}, nil
		})
	}
	for _, x := range whole {
		if seen[x] != 1 {
			t.Fatalf("value %s of the whole campaign ran %d times across the shards", x, seen[x])
		}
	}
	if len(seen) != len(whole) {
		t.Fatalf("shards ran %d distinct checks, the whole campaign %d", len(seen), len(whole))
	}
	m, err := Merge(parts)
	if err != nil || !m.OK() || m.Checks != 25 || !slices.Equal(m.Shards, []string{"1/3", "2/3", "3/3"}) {
		t.Fatalf("merge: %v %+v", err, m)
	}
}

// TestGoTestFailureNamesAReplayThatReproducesIt: a failing shard records
// the check's seed, message and script, and rapid.Check on that seed (the
// replay command) fails the same way.
func TestGoTestFailureNamesAReplayThatReproducesIt(t *testing.T) {
	defer SetRapidFlags(t, map[string]string{"rapid.checks": "200"})()
	prop := func(rt *rapid.T) {
		n := rapid.IntRange(0, 100).Draw(rt, "n")
		if n > 90 {
			rt.Fatalf("n = %d is too big\nscript (2 actions):\n  tick\n  compact\ntrace: /tmp/x.jsonl (converge trace replay)", n)
		}
	}
	r, rep := goTestShard(t, "2/2", prop)
	if !rep.Failed() || r.Failed != 1 || len(r.Failures) != 1 {
		t.Fatalf("results %+v, report %s", r, rep.Text())
	}
	f := r.Failures[0]
	if f.Index%2 != 1 || !strings.HasPrefix(f.Failure, "n = ") || !slices.Equal(f.Script, []string{"tick", "compact"}) ||
		f.Trace != "/tmp/x.jsonl" || !strings.Contains(f.Replay, "-rapid.seed="+strconv.FormatUint(f.Seed, 10)) ||
		!strings.Contains(f.Replay, "./properties") || r.OK() {
		t.Fatalf("record %+v", f)
	}
	defer SetRapidFlags(t, map[string]string{"rapid.checks": "1", "rapid.seed": strconv.FormatUint(f.Seed, 10), "rapid.nofailfile": "true"})()
	again := NewReport("replay")
	rapid.Check(again, prop)
	if !again.Failed() || !strings.Contains(again.Text(), "n = ") {
		t.Fatalf("the replay command does not fail: %s", again.Text())
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	var parsed junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &parsed); err != nil {
		t.Fatalf("%v\n%s", err, junit.String())
	}
	c := parsed.Suites[0].Cases[0]
	if parsed.Suites[0].Failures != 1 || c.Failure == nil || !strings.Contains(c.Failure.Text, f.Replay) || !strings.Contains(c.Failure.Text, "  compact") {
		t.Fatalf("junit:\n%s", junit.String())
	}
}

func TestMergeRefusesWhatIsNotOneCampaign(t *testing.T) {
	part := func(shard string, seed uint64) CheckResults {
		return CheckResults{Schema: ResultsSchema, Name: "converge check", Target: "model", Seed: seed, Shard: shard, Checks: 2, Passed: 2}
	}
	for name, rs := range map[string][]CheckResults{
		"missing":   {part("1/3", 1), part("3/3", 1)},
		"twice":     {part("1/2", 1), part("1/2", 1), part("2/2", 1)},
		"seeds":     {part("1/2", 1), part("2/2", 2)},
		"splits":    {part("1/2", 1), part("2/3", 1)},
		"empty":     nil,
		"bad shard": {part("merged", 1)},
	} {
		if _, err := Merge(rs); !errors.Is(err, ErrBadResults) {
			t.Errorf("%s: err %v", name, err)
		}
	}
	m, err := Merge([]CheckResults{part("", 1)})
	if err != nil || !m.OK() || m.Checks != 2 {
		t.Fatalf("a whole campaign: %v %+v", err, m)
	}
	path := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(path, []byte(`{"schema":"converge.check-results/v0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResultsFile(path); !errors.Is(err, ErrBadResults) {
		t.Fatalf("old schema: %v", err)
	}
}

func TestShardedGoTestNeedsASeed(t *testing.T) {
	t.Setenv(ShardEnv, "1/2")
	t.Setenv(SeedEnv, "") // restored after the test
	os.Unsetenv(SeedEnv)
	rep := NewReport("x")
	Check(rep, func(rt *rapid.T) {})
	if !rep.Failed() || !strings.Contains(rep.Text(), SeedEnv) {
		t.Fatalf("report: %s", rep.Text())
	}
}
