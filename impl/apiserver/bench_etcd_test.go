package apiserver

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// The benchmarks here measure the apiserver over HTTP against raw etcd
// over gRPC in the same run; compare them as ratios:
//
//	create ratio = BenchmarkRawEtcdPutGRPC ns/op / BenchmarkHTTPPodCreate ns/op   (goal >= 0.5)
//	               (BenchmarkHTTPPodCreateWire leaves out the Go client's own work;
//	               BenchmarkHTTPPodCreateExternalEtcd has the apiserver reach etcd
//	               over gRPC, as with --etcd-endpoints, instead of in-process;
//	               BenchmarkRawEtcdPutInProcess is a put on the apiserver's own client)
//	list ratio   = BenchmarkHTTPList10000Pods ns/op / BenchmarkRawEtcdRange10000 ns/op (goal <= 3)

var benchSeq atomic.Int64

// benchServer is an apiserver over a fresh store prefix behind a real
// HTTP listener.
func benchServer(b *testing.B) (*httptest.Server, *store.Store) {
	return benchServerOn(b, storetest.Store(b))
}

func benchServerOn(b *testing.B, st *store.Store) (*httptest.Server, *store.Store) {
	s, err := New(Config{Registry: registry.New(registry.Config{Store: st}), Log: log.New(io.Discard, "", 0)})
	if err != nil {
		b.Fatal(err)
	}
	return httptest.NewServer(s.Handler()), st
}

// httpEnv is benchServer and an HTTP client to it.
func httpEnv(b *testing.B) (client.Client, *store.Store, func()) {
	ts, st := benchServer(b)
	c, err := client.HTTP(client.HTTPConfig{Server: ts.URL})
	if err != nil {
		b.Fatal(err)
	}
	return c, st, ts.Close
}

func benchPod(name string) *api.Pod {
	return &api.Pod{
		TypeMeta:   api.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "bench"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

// storedPodJSON is what the apiserver stores for a bench pod, for the raw puts.
func storedPodJSON(b *testing.B) string {
	p := benchPod("x")
	api.Default(p)
	data, err := api.Marshal(p)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func BenchmarkHTTPPodCreate(b *testing.B) {
	ts, _ := benchServer(b)
	benchTypedCreates(b, ts)
}

func BenchmarkHTTPPodCreateExternalEtcd(b *testing.B) {
	ts, _ := benchServerOn(b, storetest.GRPCStore(b))
	benchTypedCreates(b, ts)
}

// benchTypedCreates creates b.N pods through ts with the typed Go client.
func benchTypedCreates(b *testing.B, ts *httptest.Server) {
	defer ts.Close()
	c, err := client.HTTP(client.HTTPConfig{Server: ts.URL})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Create(ctx, benchPod(fmt.Sprintf("p-%d-%d", benchSeq.Add(1), i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHTTPPodCreateWire is the create as a client sees the wire:
// JSON bytes posted and the answer's bytes read, as the raw puts send a
// ready value; the Go client's encoding and decoding are left out.
func BenchmarkHTTPPodCreateWire(b *testing.B) {
	ts, _ := benchServer(b)
	defer ts.Close()
	hc := ts.Client()
	url := ts.URL + "/api/v1/namespaces/default/pods"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-` + strconv.FormatInt(benchSeq.Add(1), 10) +
			`","labels":{"app":"bench"}},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}`
		resp, err := hc.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated {
			b.Fatal(resp.Status, err)
		}
	}
}

func BenchmarkRawEtcdPutGRPC(b *testing.B) { benchRawPuts(b, storetest.GRPCClient(b)) }

func BenchmarkRawEtcdPutInProcess(b *testing.B) { benchRawPuts(b, storetest.Client(b)) }

func benchRawPuts(b *testing.B, cli *clientv3.Client) {
	value := storedPodJSON(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cli.Put(ctx, fmt.Sprintf("/rawbench/%d/%d", benchSeq.Add(1), i), value); err != nil {
			b.Fatal(err)
		}
	}
}

// fill creates n pods directly in the store (fast) under the store's prefix.
func fill(b *testing.B, st *store.Store, n int) {
	ctx := context.Background()
	for i := 0; i < n; i++ {
		p := benchPod(fmt.Sprintf("p-%05d", i))
		api.Default(p)
		data, err := api.Marshal(p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Create(ctx, store.Key{Resource: "pods", Namespace: "default", Name: p.Name}, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHTTPList10000Pods reads the PodList's bytes over HTTP, as the
// raw range reads etcd's: neither side decodes into Go objects.
func BenchmarkHTTPList10000Pods(b *testing.B) {
	ts, st := benchServer(b)
	defer ts.Close()
	fill(b, st, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := http.Get(ts.URL + "/api/v1/namespaces/default/pods")
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || n < 10000*100 {
			b.Fatalf("list: %d, %d bytes, %v", resp.StatusCode, n, err)
		}
	}
}

func BenchmarkRawEtcdRange10000(b *testing.B) {
	cli := storetest.GRPCClient(b)
	prefix := fmt.Sprintf("/rawrange/%d/", benchSeq.Add(1))
	value := storedPodJSON(b)
	ctx := context.Background()
	for i := 0; i < 10000; i++ {
		if _, err := cli.Put(ctx, fmt.Sprintf("%s%05d", prefix, i), value); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Kvs) != 10000 {
			b.Fatalf("range returned %d keys", len(resp.Kvs))
		}
	}
}

// BenchmarkWatchLatency measures, per op, the time from a create's
// acknowledgement to its event reaching an HTTP watcher, and reports the
// p50 and p99 over the run. The event can reach the watcher first (the
// apiserver's watch and the create's answer race back), which counts as
// 0; before-ack-% says how often that happened.
func BenchmarkWatchLatency(b *testing.B) {
	c, _, stop := httpEnv(b)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := c.Watch(ctx, "pods", "default", "")
	if err != nil {
		b.Fatal(err)
	}
	// A reader of its own stamps arrivals, so a later ack cannot delay them.
	type arrival struct {
		name string
		at   time.Time
	}
	arrivals := make(chan arrival, 1)
	go func() {
		for ev := range events {
			if ev.Err != nil {
				b.Error(ev.Err)
				return
			}
			if ev.Object != nil {
				arrivals <- arrival{api.Meta(ev.Object).Name, time.Now()}
			}
		}
	}()
	lat := make([]time.Duration, 0, b.N)
	early := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("w-%d-%d", benchSeq.Add(1), i)
		if _, err := c.Create(ctx, benchPod(name)); err != nil {
			b.Fatal(err)
		}
		acked := time.Now()
		for a := range arrivals {
			if a.name != name {
				continue
			}
			d := a.at.Sub(acked)
			if d < 0 {
				d, early = 0, early+1
			}
			lat = append(lat, d)
			break
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
		b.ReportMetric(100*float64(early)/float64(len(lat)), "before-ack-%")
	}
}
