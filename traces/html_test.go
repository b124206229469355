package traces

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTimelineLanesFollowTheFlow(t *testing.T) {
	lanes, index := timelineLanes(seedFlow(1).done())
	var names []string
	for _, l := range lanes {
		names = append(names, l.Name)
	}
	require.Equal(t, []string{"user", "fault", "store", "deployment-controller", "replicaset-controller",
		"endpoints-controller", "scheduler", "kubelet/node-1", "kubelet/node-2", "kube-proxy/node-1"}, names)
	require.Equal(t, 0, index[0])
	require.Equal(t, 1, index[7]) // the crash
	require.Equal(t, "controller", lanes[3].Kind)

	lanes, index = timelineLanes(nil)
	require.Equal(t, []lane{{Name: StoreLane, Kind: "store"}}, lanes)
	require.Empty(t, index)
}

func TestWriteHTMLIsSelfContainedAndEscaped(t *testing.T) {
	events := seedFlow(1).done()
	events[3].Detail = `</script><script>alert("x")</script>`
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, events, `run <7> & "more"`))
	page := buf.String()
	require.Contains(t, page, "<title>run &lt;7&gt; &amp; &#34;more&#34; · converge trace</title>")
	require.NotContains(t, page, `<script>alert`)
	require.Equal(t, 2, strings.Count(page, "</script>"), "the data must not close its script element")
	for _, external := range []string{"http://", "https://", "<link", "@import", "src=", "url("} {
		require.NotContains(t, page, external, "the page must not load anything")
	}
	require.NotContains(t, page, "{{", "a placeholder was left in the page")
	require.NotContains(t, page, "/*{{", "a placeholder was left in the page")
}

// chromium finds Debian's chromium. A missing browser fails under CI=true
// and skips otherwise.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not on PATH and CI=true: install Debian's chromium (apt-get install -y chromium)")
	}
	t.Skip("chromium is not on PATH: install Debian's chromium (apt-get install -y chromium) to run the timeline test")
	return ""
}

// headless runs chromium on a file with the given command flag
// (--dump-dom or --screenshot=...) and returns its stdout.
func headless(t *testing.T, bin, page string, command ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000"}, command...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium failed: %s", stderr.String())
	return stdout.Bytes()
}

var bodyTag = regexp.MustCompile(`<body([^>]*)>`)

// bodyAttrs reads the attributes of the dumped DOM's <body>.
func bodyAttrs(t *testing.T, dom []byte) map[string]string {
	t.Helper()
	m := bodyTag.FindSubmatch(dom)
	require.NotNil(t, m, "no <body> in the dumped DOM")
	attrs := map[string]string{}
	for _, a := range regexp.MustCompile(`([\w-]+)="([^"]*)"`).FindAllSubmatch(m[1], -1) {
		attrs[string(a[1])] = string(a[2])
	}
	return attrs
}

func writePage(t *testing.T, dir, name string, events []TraceEvent) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, events, name))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CONVERGE_ARTIFACTS")
	if dir == "" {
		var err error
		dir, err = os.MkdirTemp("", "converge-artifacts-")
		require.NoError(t, err)
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// TestTimelineRendersInChromium loads pages in headless Chromium and reads
// back what the page script drew. The seed page is also saved as a
// screenshot under $CONVERGE_ARTIFACTS (default: a new temp dir).
func TestTimelineRendersInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	cases := []struct {
		name   string
		events []TraceEvent
		lanes  int
		shot   bool
	}{
		{"seed.html", seedFlow(1).done(), 10, true},
		{"big.html", bigTrace(5000, 1).done(), 8, false},
		{"empty.html", nil, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			flags := []string{"--dump-dom"}
			var shot string
			if c.shot {
				shot = filepath.Join(artifactsDir(t), "trace.png")
				flags = append(flags, "--screenshot="+shot, "--window-size=1400,900")
			}
			dom := headless(t, bin, writePage(t, dir, c.name, c.events), flags...)
			attrs := bodyAttrs(t, dom)
			require.Equal(t, "true", attrs["data-rendered"], "the page script did not finish")
			require.Equal(t, strconv.Itoa(c.lanes), attrs["data-lanes"])
			require.Equal(t, strconv.Itoa(len(c.events)), attrs["data-events"])
			rows := bytes.Count(dom, []byte(`class="ev`))
			require.Equal(t, attrs["data-drawn"], strconv.Itoa(rows))
			if len(c.events) > 0 {
				require.Positive(t, rows)
			}
			require.LessOrEqual(t, rows, min(len(c.events), 100), "rows out of view should not be drawn")
			if shot != "" {
				info, err := os.Stat(shot)
				require.NoError(t, err)
				require.Positive(t, info.Size())
				t.Logf("timeline screenshot: %s", shot)
			}
		})
	}
}
