package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
	"github.com/stretchr/testify/require"
)

// TestScenarioTracesGolden records every scenario on the model and diffs it
// against testdata/traces/NAME.jsonl; -rewrite regenerates the files.
func TestScenarioTracesGolden(t *testing.T) {
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			var got bytes.Buffer
			st, err := RecordScenario(sc, model.Config{}, &got)
			require.NoError(t, err)
			require.NoError(t, model.Converged(st.Snapshot()), "scenario %s must end converged", sc.Name)
			path := filepath.Join("testdata", "traces", sc.Name+".jsonl")
			if *rewrite {
				require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
				return
			}
			want, err := ReadFile(path)
			require.NoError(t, err, "run go test ./traces -run Golden -rewrite to create it")
			fresh, err := ReadAll(&got)
			require.NoError(t, err)
			if res := Diff(want, fresh, DiffOptions{}); !res.Equal {
				var text bytes.Buffer
				require.NoError(t, WriteText(&text, res, false, DefaultContext))
				t.Fatalf("%s is stale (a: golden, b: fresh run); rerun with -rewrite and review:\n%s", path, text.String())
			}
		})
	}
}

func TestScenarioTraceBytesAreDeterministic(t *testing.T) {
	sc, ok := ScenarioNamed("seed-deployment")
	require.True(t, ok)
	var a, b bytes.Buffer
	_, err := RecordScenario(sc, model.Config{}, &a)
	require.NoError(t, err)
	_, err = RecordScenario(sc, model.Config{}, &b)
	require.NoError(t, err)
	require.Equal(t, a.String(), b.String())
	require.Contains(t, a.String(), `"script":"apply default/my-app replicas=3 image=nginx:1.27"`)
	require.NotContains(t, a.String(), `"rev":`, "the model's revisions are not recorded")
}

func TestScenarioNamesAreUniqueAndExpand(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range Scenarios() {
		require.False(t, seen[sc.Name], "duplicate scenario %s", sc.Name)
		seen[sc.Name] = true
		require.NotEmpty(t, sc.Doc, sc.Name)
		actions, err := sc.Expand(model.New(model.Config{}))
		require.NoError(t, err, sc.Name)
		require.Greater(t, len(actions), len(sc.Steps)/2, sc.Name)
	}
	_, ok := ScenarioNamed("no-such-scenario")
	require.False(t, ok)
}

func TestScenarioExpandRejectsBadSteps(t *testing.T) {
	for name, steps := range map[string][]string{
		"unparsable":  {"frobnicate web"},
		"not enabled": {"reconcile scheduler no-such-pod"},
		"bare drain":  {"drain"},
		"bad args":    {"scale web"},
	} {
		sc := Scenario{Name: name, Steps: steps}
		_, err := sc.Expand(model.New(model.Config{}))
		require.ErrorIs(t, err, ErrScenario, name)
		require.Contains(t, err.Error(), name+" step 1", name)
	}
}

// TestMutantDivergenceGolden records seed-deployment with an endpoints
// controller that lists unready pods; the diff against the correct model's
// trace must name the endpoints controller's reconcile as the first
// divergence. The text is kept in testdata/diff_mutant_endpoints_unready.golden.
func TestMutantDivergenceGolden(t *testing.T) {
	sc, _ := ScenarioNamed("seed-deployment")
	record := func(cfg model.Config) []TraceEvent {
		var buf bytes.Buffer
		_, err := RecordScenario(sc, cfg, &buf)
		require.NoError(t, err)
		events, err := ReadAll(&buf)
		require.NoError(t, err)
		return events
	}
	good, bad := record(model.Config{}), record(model.Config{Decisions: decide.EndpointsListsUnready})
	res := Diff(good, bad, DiffOptions{})
	require.False(t, res.Equal)
	fd := res.FirstDivergence
	require.Equal(t, Changed, fd.Op, fd.Reason)
	require.Equal(t, "endpoints-controller", fd.A.Actor)
	require.Equal(t, "reconcile", fd.A.Action)
	require.Equal(t, fd.IndexA, fd.IndexB, "the traces agree up to the divergence")
	var out bytes.Buffer
	require.NoError(t, WriteText(&out, res, false, DefaultContext))
	checkGolden(t, filepath.Join("testdata", "diff_mutant_endpoints_unready.golden"), out.Bytes())
}
