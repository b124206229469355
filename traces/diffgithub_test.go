package traces

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// command is one parsed workflow command line.
type command struct {
	kind  string
	props map[string]string
	msg   string
}

var commandLine = regexp.MustCompile(`^::(\w+) ([^:]*)::(.*)$`)

// unescape undoes EscapeGitHubProperty and EscapeGitHubData, as the runner
// does.
func unescape(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

func parseCommands(t *testing.T, out string) []command {
	var cs []command
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := commandLine.FindStringSubmatch(l)
		require.NotNil(t, m, "not a workflow command: %q", l)
		c := command{kind: m[1], props: map[string]string{}, msg: unescape(m[3])}
		for _, p := range strings.Split(m[2], ",") {
			k, v, ok := strings.Cut(p, "=")
			require.True(t, ok, "property %q", p)
			c.props[k] = unescape(v)
		}
		cs = append(cs, c)
	}
	return cs
}

func TestGitHubAnnotationNamesTheFirstDivergenceAndItsFields(t *testing.T) {
	a := seedFlow(1).done()
	b := seedFlow(1).done()
	b[6].Writes = append(b[6].Writes, Write{Verb: "CREATE", Resource: "pods", Name: "myapp-7d9f-3"})
	b[6].Digest = "sha256:ffffffffffffffff"
	res := Diff(a, b, DiffOptions{})
	var out bytes.Buffer
	require.NoError(t, WriteGitHub(&out, res, "testdata/golden, v1.jsonl", "out/new.jsonl"))
	cs := parseCommands(t, out.String())
	require.Len(t, cs, 2)
	e := cs[0]
	require.Equal(t, "error", e.kind)
	require.Equal(t, "testdata/golden, v1.jsonl", e.props["file"]) // the comma survives escaping
	require.Equal(t, "7", e.props["line"])
	require.Contains(t, e.props["title"], "event 7 changed")
	require.Contains(t, e.msg, "first divergence: changed "+a[6].Actor+" "+a[6].Action)
	require.Contains(t, e.msg, "out/new.jsonl line 7")
	require.Contains(t, e.msg, res.FirstDivergence.Reason)
	require.Contains(t, e.msg, "fields: writes, digest")
	require.Equal(t, "notice", cs[1].kind)
	require.Contains(t, cs[1].msg, "0 added, 0 removed, 1 changed in 1 hunk(s)")
}

func TestGitHubAnnotationOfAnEventAddedAtTheEndPointsAtTheLastLine(t *testing.T) {
	a := seedFlow(1).done()
	res := Diff(a[:5], a, DiffOptions{})
	var out bytes.Buffer
	require.NoError(t, WriteGitHub(&out, res, "g.jsonl", "n.jsonl"))
	cs := parseCommands(t, out.String())
	require.Equal(t, "5", cs[0].props["line"])
	require.Contains(t, cs[0].msg, "first divergence: added")

	out.Reset()
	require.NoError(t, WriteGitHub(&out, Diff(a, a, DiffOptions{}), "g.jsonl", "n.jsonl"))
	require.Empty(t, out.String(), "equal traces annotate nothing")
}

func TestGitHubEscaping(t *testing.T) {
	require.Equal(t, "100%25%0Anext%0D", EscapeGitHubData("100%\nnext\r"))
	require.Equal(t, "a%3Ab%2Cc%25", EscapeGitHubProperty("a:b,c%"))
}
