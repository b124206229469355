package proxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is returned by Sync after Close.
var ErrClosed = errors.New("proxy: closed")

// dialTimeout bounds the connect to one backend; the backends are on this
// host, so a slow connect means a dead one.
const dialTimeout = time.Second

// Service is what the proxy forwards for one Service port.
type Service struct {
	Name       string // for messages only
	IP         string // the clusterIP
	Port       int
	TargetPort int
	Backends   []string // pod IPs
}

func (s Service) address() string { return net.JoinHostPort(s.IP, strconv.Itoa(s.Port)) }

// Proxy forwards the connections of many Services.
type Proxy struct {
	mu        sync.Mutex
	closed    bool
	listeners map[string]*listener // by clusterIP:port
}

// New returns a proxy with no listeners.
func New() *Proxy { return &Proxy{listeners: map[string]*listener{}} }

type listener struct {
	ln       net.Listener
	backends atomic.Pointer[[]string] // host:port
	next     atomic.Uint64
	wg       sync.WaitGroup
	connMu   sync.Mutex
	conns    map[net.Conn]struct{}
}

// Sync makes the listeners match services. Services with no IP or port are
// ignored. It returns the listeners it could not open.
func (p *Proxy) Sync(services []Service) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	want := map[string]Service{}
	for _, s := range services {
		if s.IP == "" || s.Port <= 0 || net.ParseIP(s.IP) == nil {
			continue
		}
		want[s.address()] = s
	}
	for addr, l := range p.listeners {
		if _, ok := want[addr]; !ok {
			delete(p.listeners, addr)
			l.ln.Close() // open connections finish on their own
		}
	}
	var errs []error
	addrs := make([]string, 0, len(want))
	for addr := range want {
		addrs = append(addrs, addr)
	}
	sort.Strings(addrs)
	for _, addr := range addrs {
		s := want[addr]
		l, ok := p.listeners[addr]
		if !ok {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				errs = append(errs, fmt.Errorf("proxy: service %s: %w", s.Name, err))
				continue
			}
			l = &listener{ln: ln, conns: map[net.Conn]struct{}{}}
			p.listeners[addr] = l
			go l.serve()
		}
		backends := make([]string, 0, len(s.Backends))
		for _, b := range s.Backends {
			backends = append(backends, net.JoinHostPort(b, strconv.Itoa(s.TargetPort)))
		}
		sort.Strings(backends)
		l.backends.Store(&backends)
	}
	return errors.Join(errs...)
}

// Addresses lists the clusterIP:port pairs being served, sorted.
func (p *Proxy) Addresses() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.listeners))
	for addr := range p.listeners {
		out = append(out, addr)
	}
	sort.Strings(out)
	return out
}

// Close stops every listener and cuts every forwarded connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	ls := p.listeners
	p.listeners = map[string]*listener{}
	p.mu.Unlock()
	for _, l := range ls {
		l.ln.Close()
		l.connMu.Lock()
		for c := range l.conns {
			c.Close()
		}
		l.connMu.Unlock()
		l.wg.Wait()
	}
	return nil
}

func (l *listener) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // closed
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.forward(c)
		}()
	}
}

// pick dials the backends in turn from the next one, skipping those that
// refuse.
func (l *listener) dial() net.Conn {
	backends := *l.backends.Load()
	if len(backends) == 0 {
		return nil
	}
	start := l.next.Add(1) - 1
	for i := range backends {
		b := backends[(start+uint64(i))%uint64(len(backends))]
		if c, err := net.DialTimeout("tcp", b, dialTimeout); err == nil {
			return c
		}
	}
	return nil
}

func (l *listener) track(c net.Conn, on bool) {
	l.connMu.Lock()
	defer l.connMu.Unlock()
	if on {
		l.conns[c] = struct{}{}
	} else {
		delete(l.conns, c)
	}
}

func (l *listener) forward(in net.Conn) {
	defer in.Close()
	out := l.dial()
	if out == nil {
		return
	}
	defer out.Close()
	l.track(in, true)
	l.track(out, true)
	defer l.track(in, false)
	defer l.track(out, false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(out, in)
		closeWrite(out)
	}()
	_, _ = io.Copy(in, out)
	closeWrite(in)
	<-done
}

// closeWrite passes an EOF on while the other direction may still flow.
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	_ = c.Close()
}
