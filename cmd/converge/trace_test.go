package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// traceSample is a short seed-flow trace; extra events are appended.
func traceSample(extra ...traces.TraceEvent) []traces.TraceEvent {
	events := []traces.TraceEvent{
		{Actor: "user", Action: "apply", Key: "myapp", Detail: "replicas=3 image=nginx:1",
			Writes: []traces.Write{{Verb: "CREATE", Resource: "deployments", Name: "myapp", UID: "u1", Rev: 2}}, Rev: 2},
		{Actor: "deployment-controller", Action: "deliver", Key: "myapp", Detail: "ADDED deployments/myapp", Seen: 1},
		{Actor: "deployment-controller", Action: "reconcile", Key: "myapp", Seen: 1,
			Writes: []traces.Write{{Verb: "CREATE", Resource: "replicasets", Name: "myapp-7d9f"}}},
		{Actor: "replicaset-controller", Action: "deliver", Key: "myapp-7d9f", Detail: "ADDED replicasets/myapp-7d9f", Seen: 1},
	}
	events = append(events, extra...)
	for i := range events {
		events[i].V, events[i].Seq = 1, i+1
		events[i].Digest = traces.Digest([]byte{byte(min(i, 2))})
	}
	return events
}

func writeTraceFile(t *testing.T, dir, name string, events []traces.TraceEvent) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	require.NoError(t, err)
	w := traces.NewWriter(f)
	for _, e := range events {
		require.NoError(t, w.Write(e))
	}
	require.NoError(t, f.Close())
	return path
}

func runTraceCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestTraceDiffExitCodes(t *testing.T) {
	dir := t.TempDir()
	a := writeTraceFile(t, dir, "a.jsonl", traceSample())
	same := traceSample()
	same[0].Rev, same[0].Writes[0].UID = 99, "other" // volatile only
	aAgain := writeTraceFile(t, dir, "a2.jsonl", same)
	b := writeTraceFile(t, dir, "b.jsonl", traceSample(traces.TraceEvent{Actor: "replicaset-controller", Action: "reconcile",
		Key: "myapp-7d9f", Seen: 1, Writes: []traces.Write{{Verb: "CREATE", Resource: "pods", Name: "myapp-7d9f-0"}}}))
	bad := filepath.Join(dir, "bad.jsonl")
	lines, err := os.ReadFile(a)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, append(lines, `{"v":1,"seq":9}`+"\n"...), 0o644))

	code, out, errOut := runTraceCLI("trace", "diff", a, aAgain)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "traces equal: 4 events")

	code, out, errOut = runTraceCLI("trace", "diff", a, b, "--color", "never")
	require.Equal(t, 1, code)
	require.Contains(t, out, "first divergence: a line 5, b line 5: b has an event a lacks: replicaset-controller reconcile myapp-7d9f")
	require.Contains(t, out, "+       5  replicaset-controller reconcile myapp-7d9f seen=1 -> CREATE pods/myapp-7d9f-0")
	require.NotContains(t, out, "\x1b[")
	require.Equal(t, "converge trace: traces differ: first at "+a+" line 5, "+b+" line 5\n", errOut)

	code, out, _ = runTraceCLI("trace", "diff", "--json", a, b)
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(out, "{\n"), out)
	require.Contains(t, out, `"op": "added"`)

	code, out, _ = runTraceCLI("trace", "diff", a, b, "--color=always", "--context", "0")
	require.Equal(t, 1, code)
	require.Contains(t, out, "\x1b[32m+")
	require.NotContains(t, out, "deployment-controller reconcile", "context 0 shows no equal events")

	code, out, errOut = runTraceCLI("trace", "diff", a, bad)
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Equal(t, "converge trace: traces: "+bad+": line 5: seq 9 follows 4\n", errOut)

	code, _, errOut = runTraceCLI("trace", "diff", a, filepath.Join(dir, "missing.jsonl"))
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "missing.jsonl: no such file or directory")
	require.Equal(t, 1, strings.Count(errOut, "\n"), "one line")
}

func TestTraceDiffMask(t *testing.T) {
	dir := t.TempDir()
	a := writeTraceFile(t, dir, "a.jsonl", traceSample())
	other := traceSample()
	for i := range other {
		other[i].Digest = "sha256:ffffffffffffffff"
	}
	b := writeTraceFile(t, dir, "b.jsonl", other)
	code, _, _ := runTraceCLI("trace", "diff", a, b)
	require.Equal(t, 1, code)
	code, _, errOut := runTraceCLI("trace", "diff", a, b, "--mask", "digest")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runTraceCLI("trace", "diff", a, b, "--mask", "seen,digest", "--mask=detail")
	require.Equal(t, 0, code, errOut)
}

func TestTraceDiffUsageErrors(t *testing.T) {
	dir := t.TempDir()
	a := writeTraceFile(t, dir, "a.jsonl", traceSample())
	for _, args := range [][]string{
		{"trace", "diff", a},
		{"trace", "diff", a, a, a},
		{"trace", "diff", a, a, "--mask", "colour"},
		{"trace", "diff", a, a, "--color", "sometimes"},
		{"trace", "diff", a, a, "--context", "-1"},
		{"trace", "diff", a, a, "--frobnicate"},
		{"trace", "replay", a},
		{"trace"},
	} {
		code, _, errOut := runTraceCLI(args...)
		require.Equal(t, 2, code, "%v: %s", args, errOut)
		require.NotEmpty(t, errOut)
	}
	// "--" ends the flags, so a file may be called "--json".
	code, _, errOut := runTraceCLI("trace", "diff", "--", a, "--json")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--json: no such file")
}

func TestTraceHelpListsSubcommands(t *testing.T) {
	code, out, _ := runTraceCLI("trace", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "\n  diff ")
	require.Contains(t, out, "\n  view ")
	require.Contains(t, out, "\n  replay ")

	code, out, _ = runTraceCLI("--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "trace")

	code, _, errOut := runTraceCLI("trace", "diff", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, errOut, "-mask")
}

func TestTraceView(t *testing.T) {
	dir := t.TempDir()
	a := writeTraceFile(t, dir, "run.jsonl", traceSample())

	code, out, errOut := runTraceCLI("trace", "view", a)
	require.Equal(t, 0, code, errOut)
	want := filepath.Join(dir, "run.html")
	require.Equal(t, want+"\n", out)
	page, err := os.ReadFile(want)
	require.NoError(t, err)
	require.Contains(t, string(page), "<title>run.jsonl · converge trace</title>")
	require.Contains(t, string(page), `"actor":"deployment-controller"`)

	custom := filepath.Join(dir, "custom.html")
	code, out, errOut = runTraceCLI("trace", "view", a, "-o", custom)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, custom+"\n", out)
	require.FileExists(t, custom)

	code, _, _ = runTraceCLI("trace", "view", filepath.Join(dir, "missing.jsonl"))
	require.Equal(t, 2, code)
	code, _, _ = runTraceCLI("trace", "view", a, "-o", a)
	require.Equal(t, 2, code)
	code, _, _ = runTraceCLI("trace", "view")
	require.Equal(t, 2, code)
}

// goldenSeedPod writes the seed-pod scenario's trace, as recorded on the
// model, to dir and returns its path and events.
func goldenSeedPod(t *testing.T, dir string) (string, []traces.TraceEvent) {
	t.Helper()
	sc, ok := traces.ScenarioNamed("seed-pod")
	require.True(t, ok)
	var buf bytes.Buffer
	_, err := traces.RecordScenario(sc, model.Config{}, &buf)
	require.NoError(t, err)
	golden := filepath.Join(dir, "seed-pod.jsonl")
	require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	events, err := traces.ReadFile(golden)
	require.NoError(t, err)
	return golden, events
}

func TestTraceReplay(t *testing.T) {
	dir := t.TempDir()
	// The embedded etcd's directory goes under TMPDIR; it must be gone after.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	golden, events := goldenSeedPod(t, dir)
	n := len(events)

	code, out, errOut := runTraceCLI("trace", "replay", golden)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, fmt.Sprintf("reproduced: %d events of %s on the model\nreproduced: %d events of %s on the impl\n", n, golden, n, golden), out)
	require.Empty(t, errOut, "the embedded etcd is silent")
	code, out, errOut = runTraceCLI("trace", "replay", golden, "--against", "model")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, fmt.Sprintf("reproduced: %d events of %s on the model\n", n, golden), out)
	code, out, errOut = runTraceCLI("trace", "replay", "--against=impl", golden)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, fmt.Sprintf("reproduced: %d events of %s on the impl\n", n, golden), out)
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "the embedded etcd's directory is removed")

	events[5].Writes = nil // the scheduler's bind, as if it had not happened
	tampered := writeTraceFile(t, dir, "tampered.jsonl", events)
	code, out, errOut = runTraceCLI("trace", "replay", tampered)
	require.Equal(t, 1, code)
	require.Contains(t, out, "departs at seq 6 of "+tampered+" on the model")
	require.Contains(t, out, "departs at seq 6 of "+tampered+" on the impl")
	require.Equal(t, 2, strings.Count(out, "  replayed  scheduler reconcile default/nginx seen="), out)
	require.Equal(t, 2, strings.Count(out, "^ writes differ: b BIND pods/nginx [spec.nodeName] not in a"), out)
	require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
	require.Contains(t, errOut, "on the model at seq 6")
	require.Contains(t, errOut, "on the impl at seq 6")

	code, out, _ = runTraceCLI("trace", "replay", tampered, "--against", "impl")
	require.Equal(t, 1, code)
	require.NotContains(t, out, "on the model")
	require.Contains(t, out, "departs at seq 6 of "+tampered+" on the impl")
}

func TestTraceReplayExternalEtcd(t *testing.T) {
	e, err := etcd.StartEmbedded(etcd.Config{DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(e.Close)
	golden, events := goldenSeedPod(t, t.TempDir())

	code, out, errOut := runTraceCLI("trace", "replay", golden, "--against", "impl", "--etcd-endpoints", strings.Join(e.Endpoints(), ","))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, fmt.Sprintf("reproduced: %d events of %s on the impl\n", len(events), golden), out)

	c, err := e.Client()
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, "/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	require.NoError(t, err)
	require.Zero(t, resp.Count, "the replay's keys are deleted from an external etcd")
}

func TestTraceReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	golden, _ := goldenSeedPod(t, dir)
	noScript := writeTraceFile(t, dir, "noscript.jsonl", traceSample())
	for _, args := range [][]string{
		{"trace", "replay", noScript},
		{"trace", "replay", noScript, "--against", "impl"},
		{"trace", "replay", golden, "--against", "etcd"},
		{"trace", "replay", golden, "--etcd-endpoints", ","},
		{"trace", "replay", golden, "--etcd-endpoints", "ftp://127.0.0.1:2379"},
		{"trace", "replay", golden, "--etcd-endpoints", "127.0.0.1:2379", "--against", "model"},
		{"trace", "replay", filepath.Join(dir, "missing.jsonl")},
		{"trace", "replay", golden, golden},
	} {
		code, out, errOut := runTraceCLI(args...)
		require.Equal(t, 2, code, "%v: %s", args, errOut)
		require.Empty(t, out, "%v", args)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
	}
}
