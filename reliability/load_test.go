package reliability

import (
	"bufio"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	loadDuration = flag.Duration("load.duration", 20*time.Second, "how long BenchmarkLoad loads converge up")
	loadClients  = flag.Int("load.clients", 64, "concurrent clients of BenchmarkLoad")
)

// loadVerbs are the calls the load makes, in report order.
var loadVerbs = []string{"create", "update", "patch", "get", "list", "delete"}

// loadResult is what a load run measured.
type loadResult struct {
	elapsed    time.Duration
	latencies  map[string][]time.Duration
	expected   int64    // 404s and 409s
	unexpected []string // anything else, first few kept
	nUnexp     int64
	watched    int64 // events the reading watchers got
	slow       string
}

func (r *loadResult) quantile(verb string, q float64) time.Duration {
	l := r.latencies[verb]
	if len(l) == 0 {
		return 0
	}
	return l[min(len(l)-1, int(q*float64(len(l))))]
}

// runLoad runs clients for d against k: each client owns 16 names and
// creates, updates, patches, reads, lists and deletes them at random;
// four watchers read every event, and one slow watcher reads nothing.
func runLoad(t testing.TB, k *kube, clients int, d time.Duration) *loadResult {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res := &loadResult{latencies: map[string][]time.Duration{}}
	var mu sync.Mutex
	note := func(verb string, code int, err error) {
		if err == nil && (code == 404 || code == 409) {
			atomic.AddInt64(&res.expected, 1)
			return
		}
		if err == nil && code < 300 || ctx.Err() != nil {
			return
		}
		mu.Lock()
		res.nUnexp++
		if len(res.unexpected) < 5 {
			res.unexpected = append(res.unexpected, fmt.Sprintf("%s: %d %v", verb, code, err))
		}
		mu.Unlock()
	}
	slow, err := openSlowWatcher(k, 4096)
	if err != nil {
		t.Fatalf("slow watcher: %v", err)
	}
	defer slow.Close()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", k.base+recPath+"?watch=true", nil)
			req.Header.Set("Authorization", "Bearer "+k.token)
			hc := &http.Client{Transport: k.hc.Transport}
			resp, err := hc.Do(req)
			if err != nil {
				note("watch", 0, err)
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				atomic.AddInt64(&res.watched, 1)
			}
		}()
	}
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(c), 7))
			rv := map[string]string{} // names this client has, with their last rv
			lat := map[string][]time.Duration{}
			for n := 0; ctx.Err() == nil; n++ {
				name := fmt.Sprintf("load-%d-%d", c, rnd.IntN(16))
				var verb string
				var code int
				var o obj
				var err error
				t0 := time.Now()
				switch r := rnd.IntN(20); {
				case rv[name] == "":
					verb = "create"
					code, o, err = k.call(ctx, "POST", recPath, record(name, fmt.Sprint(n), ""))
				case r < 6:
					verb = "update"
					code, o, err = k.call(ctx, "PUT", recPath+"/"+name, record(name, fmt.Sprint(n), rv[name]))
				case r < 10:
					verb = "patch"
					code, o, err = k.callType(ctx, "PATCH", recPath+"/"+name, "application/merge-patch+json", obj{"message": fmt.Sprint(n)})
				case r < 15:
					verb = "get"
					code, o, err = k.call(ctx, "GET", recPath+"/"+name, nil)
				case r < 17:
					verb = "list"
					code, _, err = k.call(ctx, "GET", recPath+"?limit=100", nil)
				default:
					verb = "delete"
					code, _, err = k.call(ctx, "DELETE", recPath+"/"+name, nil)
				}
				if ctx.Err() != nil {
					break
				}
				lat[verb] = append(lat[verb], time.Since(t0))
				note(verb, code, err)
				switch {
				case err != nil || code >= 300:
				case verb == "delete":
					delete(rv, name)
				case verb != "list":
					rv[name] = field(o, "metadata", "resourceVersion")
				}
			}
			mu.Lock()
			for v, l := range lat {
				res.latencies[v] = append(res.latencies[v], l...)
			}
			mu.Unlock()
		}()
	}
	<-ctx.Done()
	res.elapsed = time.Since(start)
	wg.Wait()
	for _, l := range res.latencies {
		slices.Sort(l)
	}
	res.slow = slow.verdict()
	return res
}

// slowWatcher is a watch whose client stops reading after the headers,
// to see what the server does with it.
type slowWatcher struct {
	raw, conn net.Conn // the TCP connection, and TLS over it if any
}

// rcvbuf, if not 0, shrinks the client's socket buffer so the server
// stalls sooner.
func openSlowWatcher(k *kube, rcvbuf int) (*slowWatcher, error) {
	u, err := url.Parse(k.base)
	if err != nil {
		return nil, err
	}
	raw, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	if rcvbuf > 0 {
		_ = raw.(*net.TCPConn).SetReadBuffer(rcvbuf)
	}
	var conn net.Conn = raw
	if k.tls != nil {
		tc := k.tls.Clone()
		tc.ServerName, tc.NextProtos = u.Hostname(), []string{"http/1.1"}
		conn = tls.Client(raw, tc)
	}
	fmt.Fprintf(conn, "GET %s?watch=true HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", recPath, u.Host, k.token)
	head := make([]byte, 256)
	if _, err := conn.Read(head); err != nil {
		conn.Close()
		return nil, err
	}
	if !strings.Contains(string(head), " 200 ") {
		conn.Close()
		return nil, fmt.Errorf("slow watcher: %q", head)
	}
	return &slowWatcher{raw: raw, conn: conn}, nil
}

// verdict says what the server did with the slow watcher: whether its
// end of the connection is still open (from /proc/net/tcp, as the client
// may not see a close behind megabytes of unread data), and how much
// the client then reads in 3 s.
func (s *slowWatcher) verdict() string {
	state := serverSide(s.raw)
	_ = s.conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	data, err := io.ReadAll(s.conn)
	read := fmt.Sprintf("%d bytes read in 3 s", len(data))
	switch {
	case strings.Contains(string(data), `"code":410`):
		read += ", then a 410"
	case err == nil:
		read += ", then the end"
	}
	return fmt.Sprintf("server side %s; %s", state, read)
}

// tcpStates names /proc/net/tcp's states.
var tcpStates = map[string]string{"01": "ESTABLISHED", "04": "FIN_WAIT1 (closed by the server)",
	"05": "FIN_WAIT2 (closed by the server)", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "0B": "CLOSING"}

// serverSide finds the server's end of the client connection c in
// /proc/net/tcp: its state and the bytes it has yet to send.
func serverSide(c net.Conn) string {
	local, remote := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return "unknown"
	}
	want := fmt.Sprintf(":%04X", remote.Port)
	peer := fmt.Sprintf(":%04X", local.Port)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasSuffix(f[1], want) && strings.HasSuffix(f[2], peer) {
			tx, _, _ := strings.Cut(f[4], ":")
			unsent, _ := strconv.ParseInt(tx, 16, 64)
			st := tcpStates[f[3]]
			if st == "" {
				st = f[3]
			}
			return fmt.Sprintf("%s with %d bytes unsent", st, unsent)
		}
	}
	return "gone (closed by the server)"
}

func (s *slowWatcher) Close() { s.conn.Close() }

// peakRSS reads a process's peak and current resident memory in MiB.
func peakRSS(pid int) (peak, now float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmHWM:":
			peak = kb / 1024
		case "VmRSS:":
			now = kb / 1024
		}
	}
	return peak, now
}

// TestLoadSmoke runs the load briefly with a few clients: no call may fail
// other than with an expected 404 or 409.
func TestLoadSmoke(t *testing.T) {
	a := startAPI(t, 1, 0)
	res := runLoad(t, a.kube, 8, 2*time.Second)
	if res.nUnexp > 0 {
		t.Errorf("%d unexpected errors: %v", res.nUnexp, res.unexpected)
	}
	if len(res.latencies["create"]) == 0 || len(res.latencies["list"]) == 0 || res.watched == 0 {
		t.Errorf("the load did not exercise every verb: %v creates, %v lists, %d watched",
			len(res.latencies["create"]), len(res.latencies["list"]), res.watched)
	}
	t.Logf("slow watcher: %s", res.slow)
}

// BenchmarkLoad runs -load.clients clients for -load.duration against
// `converge up` over loopback HTTPS and reports throughput and p50/p99 per
// verb, the unexpected errors, converge up's peak memory and the slow
// watcher's fate; writes/s is also given as a ratio of raw etcd's, measured
// by as many clients on an embedded member in the same run.
func BenchmarkLoad(b *testing.B) {
	bin := convergeBin(b)
	c := startChild(b, bin, b.TempDir()+"/data", "--nodes", "3", "--events=false")
	var res *loadResult
	var peak float64
	for b.Loop() {
		res = runLoad(b, c.kube, *loadClients, *loadDuration)
		peak, _ = peakRSS(c.cmd.Process.Pid)
	}
	secs := res.elapsed.Seconds()
	writes := 0
	for _, v := range loadVerbs {
		n := len(res.latencies[v])
		if v != "get" && v != "list" {
			writes += n
		}
		b.ReportMetric(float64(n)/secs, v+"/s")
		b.ReportMetric(float64(res.quantile(v, 0.5).Microseconds())/1000, v+"-p50-ms")
		b.ReportMetric(float64(res.quantile(v, 0.99).Microseconds())/1000, v+"-p99-ms")
	}
	b.ReportMetric(float64(res.nUnexp), "unexpected-errors")
	b.ReportMetric(peak, "peak-MiB")
	b.ReportMetric(float64(res.watched), "watch-events")
	floor := rawEtcdWrites(b, *loadClients, 5*time.Second)
	b.ReportMetric(float64(writes)/secs/floor, "writes-x-raw-etcd")
	b.Logf("slow watcher: %s; unexpected: %v; raw etcd %0.f writes/s", res.slow, res.unexpected, floor)
}
