package traces

import (
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes res as GitHub Actions workflow commands, so that a
// trace that departs from its golden shows up as an annotation on the pull
// request: one ::error at the golden's (a's) line of the first diverging
// event, naming the event, how it differs and the field-level difference,
// and a ::notice with the totals. Traces are one event per line, so event i
// is line i+1. Equal traces write nothing. pathA and pathB are the file
// names as the workflow sees them (relative to the repository root for
// annotations to land on the file).
func WriteGitHub(w io.Writer, res DiffResult, pathA, pathB string) error {
	if res.Equal || res.FirstDivergence == nil {
		return nil
	}
	fd := res.FirstDivergence
	line := min(fd.IndexA, max(res.LenA-1, 0)) + 1 // an Added event points at where it would go
	title := fmt.Sprintf("trace differs from %s: event %d %s", pathA, fd.IndexA+1, fd.Op)
	msg := fmt.Sprintf("first divergence: %s\n%s line %d, %s line %d\n%s", describe(*fd), pathA, fd.IndexA+1, pathB, fd.IndexB+1, fd.Reason)
	if len(fd.Fields) > 0 {
		msg += "\nfields: " + strings.Join(fd.Fields, ", ")
	}
	if _, err := fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n", EscapeGitHubProperty(pathA), line,
		EscapeGitHubProperty(title), EscapeGitHubData(msg)); err != nil {
		return err
	}
	t := res.Totals()
	_, err := fmt.Fprintf(w, "::notice file=%s,title=%s::%s\n", EscapeGitHubProperty(pathA), EscapeGitHubProperty("trace diff"),
		EscapeGitHubData(fmt.Sprintf("%s (%d events) vs %s (%d events): %d added, %d removed, %d changed in %d hunk(s)",
			pathA, res.LenA, pathB, res.LenB, t.Added, t.Removed, t.Changed, len(res.Hunks))))
	return err
}

// describe names a changed event: its actor, action and key, from a when
// it has one.
func describe(c Change) string {
	e := c.A
	if e == nil {
		e = c.B
	}
	s := e.Actor + " " + e.Action
	if e.Key != "" {
		s += " " + e.Key
	}
	return string(c.Op) + " " + s
}

// EscapeGitHubData escapes the message of a workflow command (after ::),
// as the runner decodes it: %, CR and LF.
func EscapeGitHubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeGitHubProperty escapes a workflow command property (file=, title=):
// the data escapes plus : and ,.
func EscapeGitHubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
