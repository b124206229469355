package traces

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDiffEqualIgnoresVolatileFields(t *testing.T) {
	res := Diff(seedFlow(1).done(), seedFlow(2).done(), DiffOptions{})
	require.True(t, res.Equal)
	require.Nil(t, res.FirstDivergence)
	require.Empty(t, res.Hunks)
	require.Empty(t, res.Actors)
}

func TestDiffOneInsertedEventIsOneAddition(t *testing.T) {
	a := seedFlow(1).done()
	hb := TraceEvent{V: 1, Actor: "kubelet/node-2", Action: "heartbeat", Key: "node-2", Seen: 1, Digest: a[9].Digest}
	b := insert(seedFlow(2).done(), 10, hb)

	res := Diff(a, b, DiffOptions{})
	require.False(t, res.Equal)
	require.Len(t, res.Hunks, 1)
	require.Equal(t, []Change{{Op: Added, IndexA: 10, IndexB: 10, B: &res.b[10],
		Reason: "b has an event a lacks: kubelet/node-2 heartbeat node-2 seen=1 digest=" + hb.Digest}}, res.Hunks[0].Changes)
	require.Equal(t, res.Hunks[0].Changes[0], *res.FirstDivergence)
	require.Equal(t, []ActorSummary{{Actor: "kubelet/node-2", Added: 1}}, res.Actors)

	var out bytes.Buffer
	require.NoError(t, WriteText(&out, res, false, 3))
	plus := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "+") {
			plus++
		}
		require.False(t, strings.HasPrefix(line, "-") || strings.HasPrefix(line, "~"), "unexpected line %q", line)
	}
	require.Equal(t, 1, plus, out.String())
}

func TestDiffRemovedEvent(t *testing.T) {
	a := seedFlow(1).done()
	b := renumber(append(append([]TraceEvent{}, a[:3]...), a[4:]...))
	res := Diff(a, b, DiffOptions{})
	require.Len(t, res.Hunks, 1)
	c := res.Hunks[0].Changes
	require.Len(t, c, 1)
	require.Equal(t, Removed, c[0].Op)
	require.Equal(t, 3, c[0].IndexA)
	require.Equal(t, 3, c[0].IndexB)
	require.Equal(t, "deployment-controller", c[0].A.Actor)
}

func TestDiffChangedWriteOrder(t *testing.T) {
	a := seedFlow(1).done()
	b := seedFlow(2).done()
	w := b[6].Writes
	b[6].Writes = []Write{w[1], w[0], w[2], w[3]}

	res := Diff(a, b, DiffOptions{})
	require.Len(t, res.Hunks, 1)
	c := *res.FirstDivergence
	require.Equal(t, Changed, c.Op)
	require.Equal(t, 6, c.IndexA)
	require.Equal(t, 6, c.IndexB)
	require.Equal(t, []string{"writes"}, c.Fields)
	require.Contains(t, c.Reason, "writes differ: order of writes 1-2: a [CREATE pods/myapp-7d9f-0, CREATE pods/myapp-7d9f-1] b [CREATE pods/myapp-7d9f-1, CREATE pods/myapp-7d9f-0]")
	require.Equal(t, []ActorSummary{{Actor: "replicaset-controller", Changed: 1}}, res.Actors)
}

func TestDiffChangedEventNamesTheExtraWrite(t *testing.T) {
	a := seedFlow(1).done()
	b := seedFlow(1).done()
	b[6].Writes = append(b[6].Writes, Write{Verb: "CREATE", Resource: "pods", Name: "myapp-7d9f-3"})
	b[6].Writes[3].Fields = []string{"status.availableReplicas", "status.replicas"}
	b[6].Digest = "sha256:ffffffffffffffff"

	res := Diff(a, b, DiffOptions{})
	c := *res.FirstDivergence
	require.Equal(t, []string{"writes", "digest"}, c.Fields)
	require.Equal(t, "writes differ: a STATUS replicasets/myapp-7d9f [status.replicas], "+
		"b STATUS replicasets/myapp-7d9f [status.availableReplicas,status.replicas]; "+
		"b CREATE pods/myapp-7d9f-3 not in a; digest differs: a "+a[6].Digest+" b sha256:ffffffffffffffff", c.Reason)

	masked := Diff(a, b, DiffOptions{Mask: []string{"digest", "writes"}})
	require.True(t, masked.Equal)
}

func TestDiffPairsOnlySameIdentity(t *testing.T) {
	a := seedFlow(1).done()
	b := seedFlow(1).done()
	b[16].Key = "otherapp" // user scale: a different key is a different event
	b[16].Err = ""
	res := Diff(a, b, DiffOptions{})
	ops := []Op{}
	for _, c := range res.Hunks[0].Changes {
		ops = append(ops, c.Op)
	}
	require.Equal(t, []Op{Removed, Added}, ops)
	require.Equal(t, []ActorSummary{{Actor: "user", Added: 1, Removed: 1}}, res.Actors)
}

func TestDiffLengthsDifferAtTheEnd(t *testing.T) {
	a := seedFlow(1).done()
	res := Diff(a, a[:15], DiffOptions{})
	require.Equal(t, ActorSummary{Actor: "total", Removed: 5}, res.Totals())
	require.Equal(t, 15, res.FirstDivergence.IndexA)
	res = Diff(nil, a[:2], DiffOptions{})
	require.Equal(t, ActorSummary{Actor: "total", Added: 2}, res.Totals())
}

// TestDiffAccountsForEveryEvent edits the seed flow at random and checks
// that the hunks cover exactly the events that differ, in order.
func TestDiffAccountsForEveryEvent(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pool := bigTrace(40, 3).done()
	for iter := 0; iter < 500; iter++ {
		a := seedFlow(1).done()
		b := seedFlow(2).done()
		for n := r.IntN(6); n > 0; n-- {
			i := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0:
				b = insert(b, i, pool[r.IntN(len(pool))])
			case 1:
				if i < len(b) {
					b = renumber(append(b[:i:i], b[i+1:]...))
				}
			case 2:
				if i < len(b) {
					b[i].Seen += 10
				}
			}
		}
		res := Diff(a, b, DiffOptions{})
		x, y := 0, 0
		for _, h := range res.Hunks {
			require.LessOrEqual(t, x, h.StartA)
			require.Equal(t, h.StartA-x, h.StartB-y, "equal runs have equal length")
			for ; x < h.StartA; x, y = x+1, y+1 {
				require.Equal(t, Marshal(withSeq(res.a[x], 0)), Marshal(withSeq(res.b[y], 0)))
			}
			for _, c := range h.Changes {
				switch c.Op {
				case Removed:
					require.Equal(t, x, c.IndexA)
					x++
				case Added:
					require.Equal(t, y, c.IndexB)
					y++
				case Changed:
					require.Equal(t, []int{x, y}, []int{c.IndexA, c.IndexB})
					require.Equal(t, c.A.Actor+c.A.Action+c.A.Key, c.B.Actor+c.B.Action+c.B.Key)
					x, y = x+1, y+1
				}
			}
			require.Equal(t, []int{h.EndA, h.EndB}, []int{x, y})
		}
		require.Equal(t, len(a)-x, len(b)-y)
		require.Equal(t, len(res.Hunks) == 0, res.Equal)
		var out bytes.Buffer
		require.NoError(t, WriteText(&out, res, false, r.IntN(4)))
	}
}

// bigTrace is n events of a steady state: controllers resyncing many pods.
func bigTrace(n int, noise int64) *build {
	b := newBuild(noise)
	for i := 0; len(b.events) < n; i++ {
		pod := "pods/app-" + itoa(i%97)
		switch i % 4 {
		case 0:
			b.ev("kubelet/node-"+itoa(i%5), "deliver", pod, "MODIFIED "+pod, i/4)
		case 1:
			b.ev("kubelet/node-"+itoa(i%5), "reconcile", pod, "", i/4, "STATUS "+pod+" [status.phase]")
		case 2:
			b.ev("scheduler", "reconcile", pod, "", i/4)
		case 3:
			b.ev("endpoints-controller", "reconcile", "app-"+itoa(i%13), "", i/4, "UPDATE endpoints/app-"+itoa(i%13)+" [subsets]")
		}
	}
	return b
}

func itoa(i int) string { return strconv.Itoa(i) }

// edits5000 makes two 5000-event traces that differ in a few places.
func edits5000() (a, b []TraceEvent) {
	a = bigTrace(5000, 1).done()
	b = bigTrace(5000, 2).done()
	b = append(append(append([]TraceEvent{}, b[:1000]...), TraceEvent{V: 1, Actor: "fault", Action: "crash", Key: "scheduler", Digest: b[999].Digest}), b[1000:]...)
	b = append(b[:3000:3000], b[3010:]...)
	b[4000].Seen++
	return a, renumber(b)
}

func TestDiff5000EventsAligns(t *testing.T) {
	a, b := edits5000()
	res := Diff(a, b, DiffOptions{})
	require.Equal(t, ActorSummary{Actor: "total", Added: 1, Removed: 10, Changed: 1}, res.Totals())
	require.Len(t, res.Hunks, 3)
}

func BenchmarkDiff5000(b *testing.B) {
	x, y := edits5000()
	for b.Loop() {
		Diff(x, y, DiffOptions{})
	}
}

// BenchmarkDiff5000Disjoint is the worst case: no event in common.
func BenchmarkDiff5000Disjoint(b *testing.B) {
	x := bigTrace(5000, 1).done()
	y := bigTrace(5000, 1).done()
	for i := range y {
		y[i].Key += "-other"
	}
	for b.Loop() {
		Diff(x, y, DiffOptions{})
	}
}

func TestWriteJSONIsMachineReadable(t *testing.T) {
	a := seedFlow(1).done()
	b := insert(seedFlow(1).done(), 3, TraceEvent{V: 1, Actor: "fault", Action: "drop-watch", Key: "deployment-controller", Digest: a[2].Digest})
	var out bytes.Buffer
	require.NoError(t, WriteJSON(&out, Diff(a, b, DiffOptions{})))
	var got struct {
		Equal           bool
		FirstDivergence struct {
			Op     string
			IndexA int `json:"index_a"`
			B      TraceEvent
		} `json:"first_divergence"`
		Actors []ActorSummary
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.False(t, got.Equal)
	require.Equal(t, "added", got.FirstDivergence.Op)
	require.Equal(t, 3, got.FirstDivergence.IndexA)
	require.Equal(t, "drop-watch", got.FirstDivergence.B.Action)
	require.Equal(t, []ActorSummary{{Actor: "fault", Added: 1}}, got.Actors)
}

// TestDiffTextGolden checks WriteText's output against testdata/*.golden;
// run with -rewrite to regenerate them, and review the change like code.
func TestDiffTextGolden(t *testing.T) {
	for name, mk := range goldenCases() {
		t.Run(name, func(t *testing.T) {
			a, b, opts, color, context := mk()
			var out bytes.Buffer
			require.NoError(t, WriteText(&out, Diff(a, b, opts), color, context))
			checkGolden(t, filepath.Join("testdata", "diff_"+name+".golden"), out.Bytes())
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *rewrite {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./traces -run Golden -rewrite to create it")
	require.Equal(t, string(want), string(got), "%s is stale: rerun with -rewrite and review", path)
}

// FuzzDiff checks that Diff and its printers never panic on valid traces.
func FuzzDiff(f *testing.F) {
	var a, b bytes.Buffer
	for _, e := range seedFlow(1).done()[:6] {
		a.Write(append(Marshal(e), '\n'))
	}
	for _, e := range insert(seedFlow(1).done()[:5], 2, seedFlow(1).done()[9]) {
		b.Write(append(Marshal(e), '\n'))
	}
	f.Add(a.Bytes(), b.Bytes(), 3)
	f.Fuzz(func(t *testing.T, da, db []byte, context int) {
		ea, err := ReadAll(bytes.NewReader(da))
		if err != nil {
			return
		}
		eb, err := ReadAll(bytes.NewReader(db))
		if err != nil {
			return
		}
		res := Diff(ea, eb, DiffOptions{Mask: []string{"seen"}})
		require.NoError(t, WriteText(io.Discard, res, true, context%10))
		require.NoError(t, WriteJSON(io.Discard, res))
		require.Equal(t, res.Equal, len(res.Hunks) == 0)
	})
}
