package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLineNamesVersionAndCommit(t *testing.T) {
	for _, c := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"installed", debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}},
			"converge v0.3.0 (commit abc123)"},
		{"dirty checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}},
			"converge (devel) (commit abc123, modified)"},
		{"no vcs stamp", debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}},
			"converge v0.3.0"},
	} {
		if got := versionLine(&c.info); got != c.want {
			t.Errorf("%s: versionLine = %q, want %q", c.name, got, c.want)
		}
	}
}

// A binary built from a git checkout prints its commit. Go stamps only a
// checkout whose .git is a directory, not a linked worktree's .git file
// (golang/go#58218), so in a worktree the binary prints its version alone
// and the test asks for just that; -buildvcs=true because GOFLAGS may
// turn the stamp off.
func TestVersionOfABuiltBinaryIsTheCheckoutsCommit(t *testing.T) {
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", args...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	want := `^converge \(devel\) \(commit ` + git("rev-parse", "HEAD") + `(, modified)?\)\n$`
	if git("rev-parse", "--git-dir") != git("rev-parse", "--git-common-dir") {
		want = `^converge \(devel\)\n$`
	}
	bin := filepath.Join(t.TempDir(), "converge")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("converge version: %v", err)
	}
	if !regexp.MustCompile(want).Match(out) {
		t.Errorf("converge version = %q, want it to match %s", out, want)
	}
}

func TestVersionRefusesArguments(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version", "extra"}, &out, &errb); code != 2 {
		t.Errorf("converge version extra: exit %d, want 2 (%s)", code, errb.String())
	}
}
