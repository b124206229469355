package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// CHANGELOG.md is in Keep a Changelog's form: an Unreleased section,
// versions as vMAJOR.MINOR.PATCH (dated once released), entries under
// the six kinds of change.
func TestChangelogIsKeepAChangelog(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, "# Changelog\n") || !strings.Contains(text, "\n## [Unreleased]\n") {
		t.Fatal("CHANGELOG.md lacks its # Changelog title or its ## [Unreleased] section")
	}
	version := regexp.MustCompile(`^## \[(Unreleased|v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*))\]( - \d{4}-\d{2}-\d{2})?$`)
	kind := regexp.MustCompile(`^### (Added|Changed|Deprecated|Removed|Fixed|Security)$`)
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## ") && !version.MatchString(line):
			t.Errorf("CHANGELOG.md: %q is not ## [Unreleased] or ## [vX.Y.Z] - YYYY-MM-DD", line)
		case strings.HasPrefix(line, "### ") && !kind.MatchString(line):
			t.Errorf("CHANGELOG.md: %q is not one of Keep a Changelog's kinds", line)
		}
	}
}

// releaseRepo is a git repository in a temp dir with the release script,
// a changelog and a Makefile whose test target passes or fails.
func releaseRepo(t *testing.T, changelog string, testPasses bool) string {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join(root, "scripts", "release.sh"))
	if err != nil {
		t.Fatal(err)
	}
	recipe := "true"
	if !testPasses {
		recipe = "echo a test failed; exit 1"
	}
	files := map[string]string{
		"scripts/release.sh": string(script),
		"CHANGELOG.md":       changelog,
		"Makefile":           "test:\n\t@" + recipe + "\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "start"}} {
		if out, code := inRepo(dir, nil, "git", args...); code != 0 {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	return dir
}

// inRepo runs a command in dir with a git identity and no outer make's
// flags; env adds variables.
func inRepo(dir string, env []string, name string, args ...string) (string, int) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MAKEFLAGS=") && !strings.HasPrefix(kv, "MAKELEVEL=") && !strings.HasPrefix(kv, "VERSION=") && !strings.HasPrefix(kv, "SKIP_TEST=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "RELEASE_DATE=2026-12-02")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		return err.Error(), -1
	}
	return string(out), cmd.ProcessState.ExitCode()
}

const changelogBefore = `# Changelog

## [Unreleased]

### Fixed

- A fix of this session.

### Added

- A feature of this session.

## [v1.2.0]

### Added

- A feature written ahead.

## [v1.1.0] - 2026-11-01

### Added

- An old feature.
`

const changelogAfter = `# Changelog

## [Unreleased]

## [v1.2.0] - 2026-12-02

### Added

- A feature of this session.
- A feature written ahead.

### Fixed

- A fix of this session.

## [v1.1.0] - 2026-11-01

### Added

- An old feature.
`

func TestReleaseDatesTheChangelogCommitsAndTags(t *testing.T) {
	dir := releaseRepo(t, changelogBefore, true)
	out, code := inRepo(dir, []string{"VERSION=v1.2.0"}, "scripts/release.sh")
	if code != 0 {
		t.Fatalf("release v1.2.0: exit %d: %s", code, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "CHANGELOG.md"))
	if string(got) != changelogAfter {
		t.Errorf("CHANGELOG.md after the release:\n%s\nwant:\n%s", got, changelogAfter)
	}
	if out, _ := inRepo(dir, nil, "git", "describe", "--exact-match", "HEAD"); strings.TrimSpace(out) != "v1.2.0" {
		t.Errorf("HEAD is not tagged v1.2.0: %s", out)
	}
	if out, _ := inRepo(dir, nil, "git", "log", "-1", "--format=%s"); strings.TrimSpace(out) != "Release v1.2.0" {
		t.Errorf("the release commit is %q", out)
	}
	if out, _ := inRepo(dir, nil, "git", "status", "--porcelain"); out != "" {
		t.Errorf("the release left the tree dirty: %s", out)
	}

	// The next release: the tag exists; an empty Unreleased has nothing to say.
	if out, code := inRepo(dir, []string{"VERSION=v1.2.0", "SKIP_TEST=1"}, "scripts/release.sh"); code != 2 || !strings.Contains(out, "tagged already") {
		t.Errorf("release of a tagged version: exit %d: %s", code, out)
	}
	if out, code := inRepo(dir, []string{"VERSION=v1.3.0", "SKIP_TEST=1"}, "scripts/release.sh"); code != 2 || !strings.Contains(out, "nothing to release") {
		t.Errorf("release with an empty Unreleased: exit %d: %s", code, out)
	}
}

func TestReleaseRefuses(t *testing.T) {
	for _, c := range []struct {
		name, version string
		testPasses    bool
		dirty         bool
		want          string
	}{
		{"no version", "", true, false, "usage: make release VERSION=vX.Y.Z"},
		{"not semver", "1.2.0", true, false, "is not vMAJOR.MINOR.PATCH"},
		{"leading zero", "v1.02.0", true, false, "is not vMAJOR.MINOR.PATCH"},
		{"a suffix", "v1.2.0-rc1", true, false, "is not vMAJOR.MINOR.PATCH"},
		{"dirty tree", "v1.2.0", true, true, "the tree is dirty"},
		{"red make test", "v1.2.0", false, false, "make test failed"},
		{"released in the changelog", "v1.1.0", true, false, "dated v1.1.0 section already"},
	} {
		dir := releaseRepo(t, changelogBefore, c.testPasses)
		if c.dirty {
			if err := os.WriteFile(filepath.Join(dir, "stray.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, code := inRepo(dir, []string{"VERSION=" + c.version}, "scripts/release.sh")
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %q; want exit 2 with %q", c.name, code, out, c.want)
		}
		if tags, _ := inRepo(dir, nil, "git", "tag"); tags != "" {
			t.Errorf("%s: tagged %s", c.name, tags)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "CHANGELOG.md")); string(got) != changelogBefore {
			t.Errorf("%s: CHANGELOG.md changed:\n%s", c.name, got)
		}
	}
}
