package serving

import (
	"net/http"
	"time"
)

// writeStall gives every write and flush of a response d to reach the
// client. A watch's handler blocks in a write while its client does not
// read; meanwhile the events behind it wait in etcd's client buffers,
// which have no bound. Kubernetes closes such a watcher once its buffer is
// full for a while; here the write fails after d and the handler ends.
func writeStall(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: d}
		// Also covers headers the server writes once the handler returns.
		_ = sw.rc.SetWriteDeadline(time.Now().Add(d))
		h.ServeHTTP(sw, r)
		if !sw.broken {
			// Over HTTP/1.1 the deadline would outlive the request and
			// fail the next one on the connection; a broken one closes.
			_ = sw.rc.SetWriteDeadline(time.Time{})
		}
	})
}

// stallWriter sets a write deadline before each write and flush.
type stallWriter struct {
	http.ResponseWriter
	rc     *http.ResponseController
	d      time.Duration
	broken bool // a write failed: later writes fail at once
}

func (s *stallWriter) Write(p []byte) (int, error) {
	if s.broken {
		return 0, http.ErrAbortHandler
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.d))
	n, err := s.ResponseWriter.Write(p)
	if err != nil {
		s.broken = true
	}
	return n, err
}

// Flush pushes buffered bytes out; a flush that stalls past the deadline
// breaks the writer, so the handler's next write fails.
func (s *stallWriter) Flush() {
	if s.broken {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.d))
	if err := s.rc.Flush(); err != nil {
		s.broken = true
	}
}

// Unwrap lets http.NewResponseController reach the server's writer.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
