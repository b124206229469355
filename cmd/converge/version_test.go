package main

import (
	"bytes"
	"os"
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

// A binary built from a git checkout prints its commit, after the version
// Go stamps (a pseudo-version, or (devel)). Go stamps only a checkout
// whose .git is a directory, not a linked worktree's .git file
// (golang/go#58218), so there the commit may be missing; -buildvcs=true
// because GOFLAGS may turn the stamp off.
func TestVersionOfABuiltBinaryIsTheCheckoutsCommit(t *testing.T) {
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", args...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	dotGit, err := os.Stat(filepath.Join(git("rev-parse", "--show-toplevel"), ".git"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "converge")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("converge version: %v", err)
	}
	m := regexp.MustCompile(`^converge (\(devel\)|v\S+)(?: \(commit ([0-9a-f]+)(?:, modified)?\))?\n$`).FindSubmatch(out)
	switch {
	case m == nil:
		t.Fatalf("converge version = %q, want converge VERSION (commit REV)", out)
	case len(m[2]) > 0 && string(m[2]) != git("rev-parse", "HEAD"):
		t.Errorf("converge version = %q, want the commit %s", out, git("rev-parse", "HEAD"))
	case len(m[2]) == 0 && dotGit.IsDir():
		t.Errorf("converge version = %q: a binary built in a checkout names its commit", out)
	}
}

func TestVersionRefusesArguments(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version", "extra"}, &out, &errb); code != 2 {
		t.Errorf("converge version extra: exit %d, want 2 (%s)", code, errb.String())
	}
}
