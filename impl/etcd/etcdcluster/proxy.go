package etcdcluster

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
)

// serverFromHeader names the sending member on etcd's raft messages
// (rafthttp's X-Server-From), the only way to tell peers apart when all of
// them dial from 127.0.0.1.
const serverFromHeader = "X-Server-From"

// peerProxy stands between a member's peers and its raft listener, so that
// a member can be cut off from its peers without being stopped. It
// forwards HTTP (raft's streams and pipelines are HTTP), and refuses and
// cuts requests that an isolation forbids.
type peerProxy struct {
	srv    *http.Server
	ln     net.Listener
	target *url.URL

	mu       sync.Mutex
	cutAll   bool                 // this member is isolated: refuse every peer
	cutFrom  map[string]bool      // member ids whose messages are refused here
	inflight map[*flight]struct{} // requests being forwarded
}

type flight struct {
	from   string
	cancel context.CancelFunc
}

func startPeerProxy(a memberAddr) (*peerProxy, error) {
	pu, err := url.Parse(a.Peer)
	if err != nil {
		return nil, err
	}
	target, err := url.Parse(a.Listen)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", pu.Host)
	if err != nil {
		return nil, err
	}
	p := &peerProxy{ln: ln, target: target, cutFrom: map[string]bool{}, inflight: map[*flight]struct{}{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1                    // raft streams must not wait in a buffer
	rp.ErrorLog = log.New(io.Discard, "", 0) // a cut stream is the point, not news
	rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from := r.Header.Get(serverFromHeader)
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		f := &flight{from: from, cancel: cancel}
		p.mu.Lock()
		if p.cutAll || (from != "" && p.cutFrom[from]) {
			p.mu.Unlock()
			http.Error(w, "etcdcluster: isolated", http.StatusServiceUnavailable)
			return
		}
		p.inflight[f] = struct{}{}
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.inflight, f)
			p.mu.Unlock()
		}()
		rp.ServeHTTP(w, r.WithContext(ctx))
	})}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// isolate refuses every peer (all) or the peer with id from, and cuts the
// requests already flowing that the new rule forbids.
func (p *peerProxy) isolate(all bool, from string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if all {
		p.cutAll = true
	} else {
		p.cutFrom[from] = true
	}
	for f := range p.inflight {
		if all || f.from == from {
			f.cancel()
		}
	}
}

// heal lifts every rule.
func (p *peerProxy) heal() {
	p.mu.Lock()
	p.cutAll = false
	p.cutFrom = map[string]bool{}
	p.mu.Unlock()
}

func (p *peerProxy) close() {
	p.mu.Lock()
	for f := range p.inflight {
		f.cancel()
	}
	p.mu.Unlock()
	_ = p.srv.Close()
}

func (p *peerProxy) isolated() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cutAll
}
