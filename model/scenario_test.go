package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestScenarios runs the scenario files under testdata/scenarios; -rewrite
// regenerates their expected output.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata/scenarios", func(t *testing.T, path string) {
		st, chk := New(Config{}), NewChecker()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out := runScenario(t, st, d)
			if err := chk.Check(st.Snapshot(), nil); err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			return out
		})
	})
}

func runScenario(t *testing.T, st *State, d *datadriven.TestData) string {
	var out []string
	switch d.Cmd {
	case "do": // do\napply myapp replicas=3 image=nginx:1.27
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			a, err := ParseAction(line)
			if err != nil {
				return err.Error()
			}
			out = append(out, FormatStep(a, st.Step(a)))
		}
	case "drain": // drain kubelet/*  (only steps that wrote are shown)
		for _, arg := range d.CmdArgs {
			for _, e := range st.Drain(arg.Key, 1000) {
				if len(e.Result.Writes) > 0 {
					out = append(out, FormatStep(e.Action, e.Result))
				}
			}
		}
	case "quiesce": // quiesce
		steps, err := st.Quiesce(10000)
		out = append(out, fmt.Sprintf("%d steps", len(steps)))
		if err == nil {
			err = Converged(st.Snapshot())
		}
		out = append(out, fmt.Sprintf("converged: %v", err == nil))
		if err != nil {
			out = append(out, err.Error())
		}
	case "state": // state pods/  (lines with that prefix)
		prefix := ""
		if len(d.CmdArgs) > 0 {
			prefix = d.CmdArgs[0].Key
		}
		for _, l := range st.Snapshot().Lines() {
			if strings.HasPrefix(l, prefix) {
				out = append(out, l)
			}
		}
	default:
		t.Fatalf("unknown command %q", d.Cmd)
	}
	return strings.Join(out, "\n") + "\n"
}
