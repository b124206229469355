package serving

import (
	"bufio"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// idleThenWrite is a watch that sends one event, stays idle for idle, then
// sends another.
func idleThenWrite(idle time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first\n"))
		w.(http.Flusher).Flush()
		time.Sleep(idle)
		w.Write([]byte("second\n"))
		w.(http.Flusher).Flush()
	})
}

// TestIdleWatchOutlivesTheWriteStall: the stall bound is for a write that
// does not get through, not for a quiet stream. Over HTTP/2 a write
// deadline left armed between writes resets the stream when it passes,
// which cut every idle watch of kubectl and client-go.
func TestIdleWatchOutlivesTheWriteStall(t *testing.T) {
	for _, proto := range []string{"HTTP/1.1", "HTTP/2.0"} {
		t.Run(proto, func(t *testing.T) {
			const stall = 100 * time.Millisecond
			hs := httptest.NewUnstartedServer(nil)
			hs.Config = NewServer(idleThenWrite(5*stall), nil, Limits{WriteStall: stall})
			hs.EnableHTTP2 = proto == "HTTP/2.0"
			hs.StartTLS()
			defer hs.Close()
			c := hs.Client()
			if proto == "HTTP/1.1" {
				c.Transport.(*http.Transport).TLSClientConfig.NextProtos = []string{"http/1.1"}
				c.Transport.(*http.Transport).ForceAttemptHTTP2 = false
				c.Transport.(*http.Transport).TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
			}
			resp, err := c.Get(hs.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.Proto != proto {
				t.Fatalf("spoke %s, want %s", resp.Proto, proto)
			}
			var lines []string
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			if got := strings.Join(lines, ","); got != "first,second" || sc.Err() != nil {
				t.Fatalf("read %q, err %v; want both events", got, sc.Err())
			}
		})
	}
}

// TestStalledWriteEndsTheHandler: a client that stops reading has the
// handler's write fail once it has waited for the stall bound, over both
// protocols, rather than block it for ever.
func TestStalledWriteEndsTheHandler(t *testing.T) {
	for _, http2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP/1.1", true: "HTTP/2.0"}[http2], func(t *testing.T) {
			ended := make(chan error, 1)
			chunk := make([]byte, 64<<10)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for i := 0; i < 1024; i++ { // 64 MiB, far more than socket and stream buffers hold
					if _, err := w.Write(chunk); err != nil {
						ended <- err
						return
					}
					w.(http.Flusher).Flush()
				}
				ended <- nil
			})
			hs := httptest.NewUnstartedServer(nil)
			hs.Config = NewServer(h, nil, Limits{WriteStall: 100 * time.Millisecond})
			hs.EnableHTTP2 = http2
			hs.StartTLS()
			defer hs.Close()
			resp, err := hs.Client().Get(hs.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close() // read nothing
			select {
			case err := <-ended:
				if err == nil {
					t.Fatal("the handler wrote 64 MiB to a client that read nothing")
				}
			case <-time.After(30 * time.Second):
				t.Fatal("a write to a client that reads nothing still blocks after 30 s")
			}
		})
	}
}
