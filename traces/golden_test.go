package traces

type goldenCase func() (a, b []TraceEvent, opts DiffOptions, color bool, context int)

// goldenCases are the text diffs kept under testdata/diff_<name>.golden.
func goldenCases() map[string]goldenCase {
	return map[string]goldenCase{
		"equal": func() ([]TraceEvent, []TraceEvent, DiffOptions, bool, int) {
			return seedFlow(1).done(), seedFlow(2).done(), DiffOptions{}, false, 3
		},
		"inserted": func() ([]TraceEvent, []TraceEvent, DiffOptions, bool, int) {
			a := seedFlow(1).done()
			hb := TraceEvent{V: 1, Actor: "kubelet/node-2", Action: "heartbeat", Key: "node-2", Seen: 1, Digest: a[9].Digest}
			return a, insert(seedFlow(2).done(), 10, hb), DiffOptions{}, false, 3
		},
		"extra_write": func() ([]TraceEvent, []TraceEvent, DiffOptions, bool, int) {
			a, b := seedFlow(1).done(), seedFlow(2).done()
			b[6].Writes = append(b[6].Writes, Write{Verb: "CREATE", Resource: "pods", Name: "myapp-7d9f-3"})
			b[6].Digest = "sha256:ffffffffffffffff"
			return a, b, DiffOptions{Mask: []string{"digest"}}, false, 2
		},
		"write_order_color": func() ([]TraceEvent, []TraceEvent, DiffOptions, bool, int) {
			a, b := seedFlow(1).done(), seedFlow(2).done()
			w := b[6].Writes
			b[6].Writes = []Write{w[1], w[0], w[2], w[3]}
			return a, b, DiffOptions{}, true, 1
		},
		"crash_changes_course": func() ([]TraceEvent, []TraceEvent, DiffOptions, bool, int) {
			a := seedFlow(1).done()
			b := append([]TraceEvent{}, seedFlow(2).done()[:7]...)
			b[6].Writes = b[6].Writes[:1]
			b[6].Digest = "sha256:1111111111111111"
			b = append(b, a[7], a[8])
			b[8].Digest = b[6].Digest
			b = append(b, TraceEvent{V: 1, Actor: "replicaset-controller", Action: "reconcile", Key: "myapp-7d9f", Seen: 1,
				Writes: []Write{{Verb: "CREATE", Resource: "pods", Name: "myapp-7d9f-1"}}, Digest: "sha256:2222222222222222"})
			b = append(b, a[16:]...)
			return a, renumber(b), DiffOptions{Mask: []string{"digest"}}, false, 3
		},
	}
}
