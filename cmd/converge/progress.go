package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/converge-dev/converge/properties"
)

// showProgress is the quiet rule of a long campaign's progress line: it
// is shown on a terminal only, and never in CI (CI set to anything but
// "false" or "0", as GitHub Actions, GitLab and most CI systems set it),
// where a line a second would bury the log.
func showProgress(ci string, stdoutTTY, stderrTTY bool) bool {
	if ci != "" && ci != "false" && ci != "0" {
		return false
	}
	return stdoutTTY && stderrTTY
}

// isTerminal reports whether w is a terminal (not a pipe, a file or
// /dev/null, which is a character device too).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine is one progress report: checks done of the campaign's,
// the rate, failures so far and the time left at that rate. Once a check
// fails the campaign stops to shrink it, so the line counts the shrink's
// replays instead of a time left.
func progressLine(p properties.Progress, checks int, elapsed time.Duration) string {
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.Checks) / elapsed.Seconds()
	}
	pct := 0
	if checks > 0 {
		pct = 100 * p.Checks / checks
	}
	line := fmt.Sprintf("checks %d/%d (%d%%), %.1f checks/s, failures %d", p.Checks, checks, pct, rate, min(p.Failures, 1))
	switch {
	case p.Failures > 0:
		line += fmt.Sprintf(", shrinking (%d runs)", p.Shrinking)
	case p.Checks == 0 || rate == 0:
		line += ", ETA unknown"
	default:
		left := time.Duration(float64(checks-p.Checks) / rate * float64(time.Second))
		line += ", ETA " + left.Round(time.Second).String()
	}
	return line
}

// progressWriter redraws one status line in place on a terminal.
type progressWriter struct{ w io.Writer }

func (p progressWriter) show(line string) { fmt.Fprintf(p.w, "\r%s\x1b[K", line) }

// clear removes the status line before the campaign's own output.
func (p progressWriter) clear() { fmt.Fprint(p.w, "\r\x1b[K") }
