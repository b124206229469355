package main

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkUpKubectlGetPodsAtScale runs `converge up --nodes 1000` with its
// defaults (events on, a one-second tick), creates a Deployment of 10,000
// replicas with the real kubectl, and runs `kubectl get pods` over and
// over while the flow runs, until every pod is Running: how long kubectl
// takes to answer (p50 and the slowest), as it chunks and in one request,
// and how long the 10,000 pods took to run. Issue 23's goal is every
// answer under 2 s.
func BenchmarkUpKubectlGetPodsAtScale(b *testing.B) {
	const nodes, pods = 1000, 10000
	needKubectl(b)
	for range b.N {
		kubeconfig, stop := startUpWith(b, upFlags{dataDir: b.TempDir(), listen: "127.0.0.1:0", nodes: nodes, tick: time.Second, quiet: true, events: true})
		get := func(args ...string) (string, time.Duration) {
			cmd := exec.Command(kubectlBin, args...)
			cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
			}
			return out.String(), time.Since(start)
		}
		start := time.Now()
		get("create", "deployment", "big", "--image=nginx:1", "--replicas=10000")
		// kubectl lists in chunks of 500 and throttles itself (a burst of
		// 10 requests, then 5 a second), so 10,000 pods take it about 2 s
		// against any apiserver; one list in one request (--chunk-size=0)
		// shows what the server adds.
		var chunked, whole []time.Duration
		running := 0
		for running < pods {
			if time.Since(start) > 10*time.Minute {
				b.Fatalf("%d of %d pods Running after 10 minutes", running, pods)
			}
			out, d := get("get", "pods", "--no-headers")
			chunked = append(chunked, d)
			_, d1 := get("get", "pods", "--no-headers", "--chunk-size=0")
			whole = append(whole, d1)
			running = strings.Count(out, " Running ")
			b.Logf("%5.1f s: kubectl get pods answered in %v (%v in one request): %d pods, %d Running",
				time.Since(start).Seconds(), d.Round(time.Millisecond), d1.Round(time.Millisecond), strings.Count(out, "\n"), running)
		}
		flow := time.Since(start)
		stop()
		for _, m := range []struct {
			name string
			ds   []time.Duration
		}{{"get", chunked}, {"get-chunk0", whole}} {
			slices.Sort(m.ds)
			b.ReportMetric(float64(m.ds[len(m.ds)/2].Milliseconds()), "p50-"+m.name+"-ms")
			b.ReportMetric(float64(m.ds[len(m.ds)-1].Milliseconds()), "max-"+m.name+"-ms")
		}
		b.ReportMetric(float64(len(chunked)), "gets")
		b.ReportMetric(flow.Seconds(), "all-running-s")
	}
}
