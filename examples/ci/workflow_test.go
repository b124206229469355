package ci

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/properties"
)

// workflow is the part of the GitHub Actions schema the test reads.
type workflow struct {
	Name string            `json:"name"`
	Env  map[string]string `json:"env"`
	Jobs map[string]job    `json:"jobs"`
}

type job struct {
	Needs    any               `json:"needs"`
	Env      map[string]string `json:"env"`
	Strategy struct {
		Matrix map[string][]any `json:"matrix"`
	} `json:"strategy"`
	Steps []step `json:"steps"`
}

type step struct {
	Name string            `json:"name"`
	ID   string            `json:"id"`
	Uses string            `json:"uses"`
	If   string            `json:"if"`
	Run  string            `json:"run"`
	Env  map[string]string `json:"env"`
	With map[string]any    `json:"with"`
}

func readWorkflow(t *testing.T) workflow {
	b, err := os.ReadFile("converge.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("converge.yml does not parse: %v", err)
	}
	return w
}

// TestWorkflowShape: the jobs the recipe promises, a 4-way matrix, actions
// pinned to a major version, and every run step in bash-parsable form.
func TestWorkflowShape(t *testing.T) {
	w := readWorkflow(t)
	for _, name := range []string{"campaign", "merge", "goldens", "fuzz"} {
		if _, ok := w.Jobs[name]; !ok {
			t.Fatalf("no job %q", name)
		}
	}
	if m := w.Jobs["campaign"].Strategy.Matrix["shard"]; len(m) != 4 {
		t.Fatalf("campaign matrix %v, want 4 shards", m)
	}
	pinned := regexp.MustCompile(`^actions/[a-z-]+@v\d+$`)
	uses := map[string]bool{}
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if s.Uses != "" {
				if !pinned.MatchString(s.Uses) {
					t.Errorf("%s: %q is not an actions/* step pinned to a major version", name, s.Uses)
				}
				uses[strings.Split(s.Uses, "@")[0]] = true
				continue
			}
			if s.Run == "" {
				t.Errorf("%s: step %q neither uses nor runs", name, s.Name)
			}
			if out, err := exec.Command("bash", "-n", "-c", s.Run).CombinedOutput(); err != nil {
				t.Errorf("%s: step %q is not valid bash: %s", name, s.Name, out)
			}
		}
	}
	for _, a := range []string{"actions/checkout", "actions/setup-go", "actions/cache", "actions/upload-artifact", "actions/download-artifact"} {
		if !uses[a] {
			t.Errorf("the recipe does not use %s", a)
		}
	}
}

// runner emulates what the workflow's run steps rely on: one shell per
// step (bash -eo pipefail, as Actions runs them), the repository root as
// working directory, GITHUB_PATH and GITHUB_OUTPUT files, RUNNER_TEMP and
// the ${{ }} expressions the file uses.
type runner struct {
	t       *testing.T
	root    string
	env     map[string]string // workflow env, tiny budgets in
	path    []string          // lines appended to GITHUB_PATH
	ghPath  string
	ghOut   string
	rtemp   string
	outputs map[string]string // steps.<id>.outputs.<name>
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// subst replaces the expressions the workflow uses; any other is an error,
// so a new expression needs a deliberate value here.
func (r *runner) subst(s string, shard int) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		switch {
		case e == "matrix.shard":
			return fmt.Sprint(shard)
		case e == "github.run_id":
			return "20261124"
		case strings.HasPrefix(e, "env."):
			return r.env[strings.TrimPrefix(e, "env.")]
		case strings.HasPrefix(e, "steps."):
			return r.outputs[e]
		}
		r.t.Fatalf("expression %q has no local value", m)
		return ""
	})
}

func (r *runner) run(jobName string, j job, shard int) {
	for _, s := range j.Steps {
		if s.Uses != "" {
			continue // checkout, setup-go, cache, artifacts: GitHub's side
		}
		env := os.Environ()
		for k, v := range r.env {
			env = append(env, k+"="+v)
		}
		for k, v := range j.Env {
			env = append(env, k+"="+r.subst(v, shard))
		}
		for k, v := range s.Env {
			env = append(env, k+"="+r.subst(v, shard))
		}
		path := os.Getenv("PATH")
		for _, p := range r.path {
			path = p + string(os.PathListSeparator) + path
		}
		env = append(env, "PATH="+path, "RUNNER_TEMP="+r.rtemp, "GITHUB_PATH="+r.ghPath, "GITHUB_OUTPUT="+r.ghOut,
			"GITHUB_WORKSPACE="+r.root)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", r.subst(s.Run, shard))
		cmd.Dir, cmd.Env = r.root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			r.t.Fatalf("%s, step %q: %v\n%s", jobName, r.subst(s.Name, shard), err, out)
		}
		r.t.Logf("%s, step %q: ok\n%s", jobName, r.subst(s.Name, shard), lastLines(string(out), 4))
		r.readFiles(s.ID)
	}
}

// readFiles takes in what a step wrote to GITHUB_PATH and GITHUB_OUTPUT.
func (r *runner) readFiles(id string) {
	if b, err := os.ReadFile(r.ghPath); err == nil {
		r.path = nil
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" && !slices.Contains(r.path, l) {
				r.path = append(r.path, l)
			}
		}
	}
	f, err := os.Open(r.ghOut)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && id != "" {
			r.outputs["steps."+id+".outputs."+k] = v
		}
	}
	os.Truncate(r.ghOut, 0)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestWorkflowCommandsRunLocally runs every run step of every job, the
// matrix job once per shard, with tiny budgets (8 controller checks, 8
// lockstep interleavings, one fuzz target for 1s), including the steps
// that only run on failure, and checks what the merge produced.
func TestWorkflowCommandsRunLocally(t *testing.T) {
	w := readWorkflow(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	r := &runner{t: t, root: root, env: map[string]string{}, ghPath: filepath.Join(tmp, "github_path"),
		ghOut: filepath.Join(tmp, "github_output"), rtemp: filepath.Join(tmp, "runner"), outputs: map[string]string{}}
	for k, v := range w.Env {
		r.env[k] = v
	}
	for k, v := range map[string]string{"CHECKS": "8", "LOCKSTEP_CHECKS": "8", "FUZZTIME": "1s",
		"FUZZ_TARGETS": "./traces:FuzzDiff", "OUT": out} {
		if _, ok := r.env[k]; !ok {
			t.Fatalf("the workflow has no env %s to shrink", k)
		}
		r.env[k] = v
	}
	// A failure trace, as a failing shard leaves it: the failure-only step
	// turns it into a timeline.
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join(root, "traces", "testdata", "traces", "seed-pod.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "lockstep-9.jsonl"), golden, 0o644); err != nil {
		t.Fatal(err)
	}
	for shard := 1; shard <= 4; shard++ {
		r.run("campaign", w.Jobs["campaign"], shard)
	}
	if _, err := os.Stat(filepath.Join(out, "lockstep-9.html")); err != nil {
		t.Fatalf("the campaign's failure step wrote no timeline: %v", err)
	}
	r.run("merge", w.Jobs["merge"], 0)
	for _, name := range []string{"controller", "lockstep"} {
		m, err := properties.ReadResultsFile(filepath.Join(out, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !m.OK() || m.Checks != 8 || len(m.Shards) != 4 {
			t.Fatalf("%s merged: %+v", name, m)
		}
	}
	// goldens: record, diff (equal), then the failure-only timelines step
	// on a planted divergence, as a failing run would have it.
	r.run("goldens", w.Jobs["goldens"], 0)
	fresh := filepath.Join(out, "traces", "scale.jsonl")
	b, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(fresh, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	timelines := w.Jobs["goldens"]
	timelines.Steps = slices.DeleteFunc(slices.Clone(timelines.Steps), func(s step) bool { return s.If != "failure()" })
	r.run("goldens (failure steps)", timelines, 0)
	for _, f := range []string{"scale.html", "scale.golden.html", "scale.diff.json"} {
		if _, err := os.Stat(filepath.Join(out, "traces", f)); err != nil {
			t.Errorf("the failure step left no %s: %v", f, err)
		}
	}
	r.run("fuzz", w.Jobs["fuzz"], 0)
}
