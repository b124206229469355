package serving

import (
	"crypto/tls"
	"net/http"
	"time"
)

// Limits bounds what a client may hold. Zero fields take the defaults.
type Limits struct {
	// ReadHeader bounds the TLS handshake and the request headers.
	ReadHeader time.Duration
	// Body bounds reading a request's body, from its headers' arrival.
	Body time.Duration
	// Idle bounds a keep-alive connection between requests.
	Idle time.Duration
	// MaxHeaderBytes caps the request headers.
	MaxHeaderBytes int
	// WriteStall bounds each write of a response to the client: a client
	// that stops reading (a slow watcher) is cut off after it, rather than
	// have the events it does not read pile up in memory.
	WriteStall time.Duration
}

// Defaults, close to kube-apiserver's (its idle timeout is 90 s; its
// header timeout 32 s is more patient than a loopback needs).
const (
	DefaultReadHeader     = 10 * time.Second
	DefaultBody           = 60 * time.Second
	DefaultIdle           = 90 * time.Second
	DefaultMaxHeaderBytes = 1 << 20
	DefaultWriteStall     = 10 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.ReadHeader <= 0 {
		l.ReadHeader = DefaultReadHeader
	}
	if l.Body <= 0 {
		l.Body = DefaultBody
	}
	if l.Idle <= 0 {
		l.Idle = DefaultIdle
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.WriteStall <= 0 {
		l.WriteStall = DefaultWriteStall
	}
	return l
}

// NewServer is an http.Server for h with limits l; tlsCfg may be nil.
// Serve it with Serve or ServeTLS as usual.
//
// http.Server.ReadTimeout is not used: over HTTP/1.1 it would also cut a
// watch once its deadline passed, as the server's background read of the
// connection fails and cancels the request. The body deadline is set per
// request instead, only where a body is expected.
func NewServer(h http.Handler, tlsCfg *tls.Config, l Limits) *http.Server {
	l = l.withDefaults()
	return &http.Server{
		Handler:           bodyDeadline(writeStall(h, l.WriteStall), l.Body),
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: l.ReadHeader,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.MaxHeaderBytes,
	}
}

// bodyDeadline gives a request with a body d to send it.
func bodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			rc := http.NewResponseController(w)
			// Unsupported writers keep no deadline. The deadline is not
			// lifted after the handler: the server drains an unread body
			// before the next request, and a trickled body must not hold
			// it there; the next request's read sets its own deadline.
			_ = rc.SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}
