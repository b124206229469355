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
//
// The deadline is armed only while a write or flush is under way: over
// HTTP/2 a deadline that passes resets the stream even when nothing is
// being written, so one left armed would cut every watch idle for d, and
// any request whose handler works for d before its first byte.
func writeStall(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: d}, r)
	})
}

// stallWriter arms a write deadline around each write and flush.
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
	s.settle(err)
	return n, err
}

// Flush pushes buffered bytes out; a flush that stalls past the deadline
// breaks the writer, so the handler's next write fails.
func (s *stallWriter) Flush() {
	if s.broken {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.d))
	s.settle(s.rc.Flush())
}

// settle disarms the deadline after a write that got through. A failed
// one keeps it: over HTTP/1.1 the connection is then closed, and the
// deadline must not be lifted from it for a next request.
func (s *stallWriter) settle(err error) {
	if err != nil {
		s.broken = true
		return
	}
	_ = s.rc.SetWriteDeadline(time.Time{})
}

// Unwrap lets http.NewResponseController reach the server's writer.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
