package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/traces"
)

// Three shards of a campaign, merged, are the campaign run whole: the same
// checks and the same actions, one summary and exit 0.
func TestCheckShardsMergeToTheWholeCampaign(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runTraceCLI("check", "--checks", "12", "--steps", "20", "--seed", "5", "--report", filepath.Join(dir, "whole.json"))
	require.Equal(t, 0, code, out+errOut)
	var files []string
	for i := 1; i <= 3; i++ {
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		x := filepath.Join(dir, fmt.Sprintf("shard-%d.xml", i))
		code, out, errOut := runTraceCLI("check", "--checks", "12", "--steps", "20", "--seed", "5", "--shard", fmt.Sprintf("%d/3", i),
			"--report", f, "--junit", x)
		require.Equal(t, 0, code, out+errOut)
		require.Contains(t, out, fmt.Sprintf("ok: 4 checks passed"))
		require.Contains(t, out, fmt.Sprintf("shard %d/3 of 12 checks", i))
		b, err := os.ReadFile(x)
		require.NoError(t, err)
		require.NoError(t, xml.Unmarshal(b, new(struct{})), string(b))
		require.Contains(t, string(b), `name="4 checks (shard `+fmt.Sprint(i)+`/3)"`)
		files = append(files, f)
	}
	merged := filepath.Join(dir, "merged.json")
	code, out, errOut = runTraceCLI(append([]string{"report", "merge", "--out", merged}, files...)...)
	require.Equal(t, 0, code, out+errOut)
	require.Contains(t, out, "3 shards, 12 checks, 12 passed, 0 failed")
	whole, err := properties.ReadResultsFile(filepath.Join(dir, "whole.json"))
	require.NoError(t, err)
	m, err := properties.ReadResultsFile(merged)
	require.NoError(t, err)
	require.Equal(t, whole.Actions, m.Actions, "the shards ran other checks than the whole campaign")
	require.Equal(t, []string{"1/3", "2/3", "3/3"}, m.Shards)

	// A lost shard is not a green campaign.
	code, out, errOut = runTraceCLI("report", "merge", files[0], files[2])
	require.Equal(t, 2, code, out+errOut)
	require.Contains(t, errOut, "missing shard(s) 2/3")
}

// A failing shard's report names the check, its script, replay command and
// trace; the merge exits 1 and, for GitHub, annotates it.
func TestCheckFailureIsReportedAndMergeFails(t *testing.T) {
	dir := t.TempDir()
	var files []string
	failed := 0
	for i := 1; i <= 2; i++ {
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		code, out, errOut := runTraceCLI("check", "--mutant", "replicaset-no-expectations", "--seed", "2", "--checks", "400",
			"--shard", fmt.Sprintf("%d/2", i), "--report", f, "--junit", filepath.Join(dir, fmt.Sprintf("s%d.xml", i)),
			"--out", filepath.Join(dir, fmt.Sprintf("s%d.script", i)), "--trace", filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)))
		require.Contains(t, []int{0, 1}, code, out+errOut)
		if code == 1 {
			failed++
			require.Contains(t, out, "trace: "+filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)))
		}
		files = append(files, f)
	}
	require.NotZero(t, failed, "the mutant was caught by no shard")
	code, out, errOut := runTraceCLI(append([]string{"report", "merge", "--format", "github", "--junit", filepath.Join(dir, "all.xml")}, files...)...)
	require.Equal(t, 1, code, out+errOut)
	require.Contains(t, out, fmt.Sprintf("%d failed", failed))
	require.Contains(t, out, "replay: converge check --target lockstep --mutant replicaset-no-expectations --replay ")
	require.Contains(t, out, "::error title=converge check check ")
	m, err := properties.ReadResultsFile(files[0])
	require.NoError(t, err)
	if m.Failed == 0 {
		m, err = properties.ReadResultsFile(files[1])
		require.NoError(t, err)
	}
	f := m.Failures[0]
	require.NotEmpty(t, f.Script)
	require.Equal(t, len(f.Script), f.FailStep)
	require.Equal(t, properties.CheckSeed(2, f.Index), f.Seed)
	events, err := traces.ReadFile(f.Trace)
	require.NoError(t, err)
	require.Len(t, events, len(f.Script), "the trace holds the shrunk script")
	x, err := os.ReadFile(filepath.Join(dir, "all.xml"))
	require.NoError(t, err)
	require.Equal(t, failed, strings.Count(string(x), "<failure "))
}

func TestReportMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(old, []byte(`{"schema":"converge.check-results/v0"}`), 0o644))
	for _, args := range [][]string{
		{"report"}, {"report", "split"}, {"report", "merge"}, {"report", "merge", filepath.Join(dir, "missing.json")},
		{"report", "merge", old}, {"report", "merge", "--format", "xml", old},
		{"check", "--shard", "1/2"}, {"check", "--shard", "3/2", "--seed", "1"},
	} {
		code, out, errOut := runTraceCLI(args...)
		require.Equal(t, 2, code, "%v: %s%s", args, out, errOut)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	}
}

func TestTraceDiffForCI(t *testing.T) {
	dir := t.TempDir()
	a := writeTraceFile(t, dir, "golden.jsonl", traceSample())
	b := writeTraceFile(t, dir, "new.jsonl", traceSample(traces.TraceEvent{Actor: "replicaset-controller", Action: "reconcile",
		Key: "myapp-7d9f", Seen: 1, Writes: []traces.Write{{Verb: "CREATE", Resource: "pods", Name: "myapp-7d9f-0"}}}))
	code, out, errOut := runTraceCLI("trace", "diff", a, b, "--format", "github")
	require.Equal(t, 1, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	require.True(t, strings.HasPrefix(lines[0], "::error file="+traces.EscapeGitHubProperty(a)+",line="), lines[0])
	require.Contains(t, lines[0], "first divergence: added replicaset-controller reconcile myapp-7d9f")
	require.True(t, strings.HasPrefix(lines[1], "::notice "), lines[1])

	code, out, _ = runTraceCLI("trace", "diff", a, b, "--format", "json")
	require.Equal(t, 1, code)
	require.Contains(t, out, `"first_divergence"`)
	code, out, _ = runTraceCLI("trace", "diff", a, a, "--format", "github")
	require.Equal(t, 0, code)
	require.Empty(t, out)
	code, _, errOut = runTraceCLI("trace", "diff", a, b, "--format", "yaml")
	require.Equal(t, 2, code, errOut)

	// The HTML timeline is an artifact on its own: nothing loaded from elsewhere.
	html := filepath.Join(dir, "t.html")
	code, _, errOut = runTraceCLI("trace", "view", b, "-o", html)
	require.Equal(t, 0, code, errOut)
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	for _, external := range []string{"http://", "https://", "src=", "<link", "url("} {
		require.NotContains(t, string(page), external)
	}
}
