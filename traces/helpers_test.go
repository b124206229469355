package traces

import (
	"flag"
	"fmt"
	"strings"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata/")

// build makes a trace from compact specs, numbering seq from 1 and giving
// each event the digest of all writes so far, so an event without writes
// leaves the digests after it unchanged. Rev, Time and write UIDs are filled
// with run-specific noise that masking must hide.
type build struct {
	events []TraceEvent
	digest string // chained over every write so far
	noise  int64
}

func newBuild(noise int64) *build { return &build{noise: noise} }

// ev adds one event; writes are "VERB resource/name [f1,f2]" strings.
func (b *build) ev(actor, action, key, detail string, seen int, writes ...string) *build {
	e := TraceEvent{V: 1, Seq: len(b.events) + 1, Actor: actor, Action: action, Key: key, Detail: detail, Seen: seen}
	for _, w := range writes {
		e.Writes = append(e.Writes, parseWrite(w, b.noise))
		b.digest = Digest([]byte(b.digest + "\n" + w))
	}
	if b.digest == "" {
		b.digest = Digest(nil)
	}
	e.Digest = b.digest
	e.Rev = b.noise*1000 + int64(len(b.events))
	e.Time = fmt.Sprintf("2026-01-0%dT00:00:%02dZ", b.noise%9+1, len(b.events)%60)
	b.events = append(b.events, e)
	return b
}

// fail marks the last event as failed with err.
func (b *build) fail(err string) *build {
	b.events[len(b.events)-1].Err = err
	return b
}

func (b *build) done() []TraceEvent { return b.events }

func parseWrite(s string, noise int64) Write {
	var w Write
	head, fields, _ := strings.Cut(s, " [")
	verb, ref, _ := strings.Cut(head, " ")
	w.Verb = verb
	w.Resource, w.Name, _ = strings.Cut(ref, "/")
	if fields != "" {
		w.Fields = strings.Split(strings.TrimSuffix(fields, "]"), ",")
	}
	w.Rev = noise*1000 + int64(len(s))
	w.UID = fmt.Sprintf("uid-%d-%s", noise, w.Name)
	return w
}

// seedFlow is the seed Deployment flow: my-app with 3 replicas on two nodes,
// a controller crash in the middle and a conflict error.
func seedFlow(noise int64) *build {
	return newBuild(noise).
		ev("user", "add-node", "node-1", "", 0, "CREATE nodes/node-1").
		ev("user", "add-node", "node-2", "", 0, "CREATE nodes/node-2").
		ev("user", "apply", "myapp", "replicas=3 image=nginx:1", 0, "CREATE deployments/myapp").
		ev("deployment-controller", "deliver", "myapp", "ADDED deployments/myapp", 1).
		ev("deployment-controller", "reconcile", "myapp", "", 1, "CREATE replicasets/myapp-7d9f").
		ev("replicaset-controller", "deliver", "myapp-7d9f", "ADDED replicasets/myapp-7d9f", 1).
		ev("replicaset-controller", "reconcile", "myapp-7d9f", "", 1,
			"CREATE pods/myapp-7d9f-0", "CREATE pods/myapp-7d9f-1", "CREATE pods/myapp-7d9f-2",
			"STATUS replicasets/myapp-7d9f [status.replicas]").
		ev("fault", "crash", "replicaset-controller", "between writes", 0).
		ev("scheduler", "deliver", "pods/myapp-7d9f-0", "ADDED pods/myapp-7d9f-0", 1).
		ev("scheduler", "reconcile", "pods/myapp-7d9f-0", "", 1, "BIND pods/myapp-7d9f-0 [spec.nodeName]").
		ev("scheduler", "deliver", "pods/myapp-7d9f-1", "ADDED pods/myapp-7d9f-1", 2).
		ev("scheduler", "reconcile", "pods/myapp-7d9f-1", "", 2, "BIND pods/myapp-7d9f-1 [spec.nodeName]").
		ev("kubelet/node-1", "deliver", "pods/myapp-7d9f-0", "MODIFIED pods/myapp-7d9f-0", 1).
		ev("kubelet/node-1", "reconcile", "pods/myapp-7d9f-0", "", 1,
			"RUNTIME-START containers/myapp-7d9f-0", "STATUS pods/myapp-7d9f-0 [status.phase,status.podIP,status.ready]").
		ev("kubelet/node-2", "deliver", "pods/myapp-7d9f-1", "MODIFIED pods/myapp-7d9f-1", 1).
		ev("kubelet/node-2", "reconcile", "pods/myapp-7d9f-1", "", 1,
			"RUNTIME-START containers/myapp-7d9f-1", "STATUS pods/myapp-7d9f-1 [status.phase,status.podIP,status.ready]").
		ev("user", "scale", "myapp", "replicas=2", 0).fail("store: resource version conflict").
		ev("endpoints-controller", "reconcile", "myapp", "", 3, "UPDATE endpoints/myapp [subsets]").
		ev("kube-proxy/node-1", "reconcile", "myapp", "", 2, "PROXY-SET rules/myapp").
		ev("kubelet/node-1", "heartbeat", "node-1", "", 2, "STATUS nodes/node-1 [status.conditions]")
}

// renumber gives events seq 1..n again after a test edited the slice.
func renumber(events []TraceEvent) []TraceEvent {
	out := make([]TraceEvent, len(events))
	for i, e := range events {
		e.Seq = i + 1
		out[i] = e
	}
	return out
}

// insert returns events with e inserted before index i, renumbered.
func insert(events []TraceEvent, i int, e TraceEvent) []TraceEvent {
	out := append(append(append([]TraceEvent{}, events[:i]...), e), events[i:]...)
	return renumber(out)
}
