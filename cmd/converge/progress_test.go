package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/converge-dev/converge/properties"
)

func TestProgressLineFormatting(t *testing.T) {
	for _, c := range []struct {
		p       properties.Progress
		checks  int
		elapsed time.Duration
		want    string
	}{
		{properties.Progress{}, 1000, 0, "checks 0/1000 (0%), 0.0 checks/s, failures 0, ETA unknown"},
		{properties.Progress{}, 1000, 3 * time.Second, "checks 0/1000 (0%), 0.0 checks/s, failures 0, ETA unknown"},
		{properties.Progress{Checks: 250}, 1000, 50 * time.Second, "checks 250/1000 (25%), 5.0 checks/s, failures 0, ETA 2m30s"},
		{properties.Progress{Checks: 999}, 1000, 333 * time.Second, "checks 999/1000 (99%), 3.0 checks/s, failures 0, ETA 0s"},
		{properties.Progress{Checks: 40, Failures: 1, Shrinking: 17}, 1000, 20 * time.Second, "checks 40/1000 (4%), 2.0 checks/s, failures 1, shrinking (17 runs)"},
		{properties.Progress{Checks: 40, Failures: 3, Shrinking: 17}, 1000, 20 * time.Second, "checks 40/1000 (4%), 2.0 checks/s, failures 1, shrinking (17 runs)"},
	} {
		if got := progressLine(c.p, c.checks, c.elapsed); got != c.want {
			t.Errorf("progressLine(%+v, %d, %v) = %q, want %q", c.p, c.checks, c.elapsed, got, c.want)
		}
	}
}

// Progress shows on a terminal and nowhere else: not in CI, not when
// either output goes to a pipe or a file.
func TestProgressQuietRule(t *testing.T) {
	for _, c := range []struct {
		ci             string
		stdout, stderr bool
		want           bool
	}{
		{"", true, true, true},
		{"false", true, true, true},
		{"0", true, true, true},
		{"true", true, true, false},
		{"1", true, true, false},
		{"", false, true, false},
		{"", true, false, false},
	} {
		if got := showProgress(c.ci, c.stdout, c.stderr); got != c.want {
			t.Errorf("showProgress(CI=%q, stdout tty %v, stderr tty %v) = %v, want %v", c.ci, c.stdout, c.stderr, got, c.want)
		}
	}
}

// A pipe, a file and /dev/null (a character device, which a mode check
// would take for a terminal) are not terminals.
func TestProgressIsTerminalRefusesPipesFilesAndDevNull(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, out := range map[string]any{"a buffer": &bytes.Buffer{}, "a file": f, "/dev/null": null, "a pipe": w} {
		if isTerminal(out.(interface{ Write([]byte) (int, error) })) {
			t.Errorf("isTerminal(%s) = true", name)
		}
	}
}

// A pseudo-terminal is a terminal.
func TestProgressIsTerminalOnAPty(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("the pty's number: %v", err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pty: %v", err)
	}
	defer pts.Close()
	if !isTerminal(pts) {
		t.Errorf("isTerminal(/dev/pts/%d) = false", n)
	}
}

// A campaign whose output is not a terminal prints no progress lines:
// stderr holds nothing, even over a campaign of several seconds.
func TestProgressIsQuietOffATerminal(t *testing.T) {
	var out, errb bytes.Buffer
	start := time.Now()
	code := run([]string{"check", "--checks", "100", "--steps", "60", "--seed", "7"}, &out, &errb)
	if code != 0 {
		t.Fatalf("converge check: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if time.Since(start) < 1500*time.Millisecond {
		t.Logf("the campaign took %v, under the progress interval; the check is weak", time.Since(start))
	}
	if strings.Contains(errb.String(), "checks/s") || errb.Len() != 0 {
		t.Errorf("converge check off a terminal wrote to stderr: %q", errb.String())
	}
}
