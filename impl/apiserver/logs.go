package apiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/converge-dev/converge/impl/api"
)

// PodLogs opens the log of one container of a pod (o.Container, or the
// pod's first), as a kubelet serves it: the whole log, or its last
// TailLines lines, and with Follow a stream that ends when ctx does or the
// container stops. Errors should be *api.StatusError (400 for a pod that
// has not started, 404 for an unknown one).
type PodLogs func(ctx context.Context, namespace, pod string, o LogOptions) (io.ReadCloser, error)

// LogOptions are the query parameters of GET pods/{name}/log.
type LogOptions struct {
	Container string
	Follow    bool
	// Previous asks for the container's last terminated instance.
	Previous bool
	// TailLines, when set, keeps only the last lines; LimitBytes caps the
	// bytes answered.
	TailLines, LimitBytes *int64
}

// logOptions reads the query as the kubelet does; bad numbers are 400.
func logOptions(r *http.Request) (LogOptions, error) {
	q := r.URL.Query()
	o := LogOptions{Container: q.Get("container")}
	var err error
	if o.Follow, err = queryBool(q.Get("follow"), "follow"); err != nil {
		return o, err
	}
	if o.Previous, err = queryBool(q.Get("previous"), "previous"); err != nil {
		return o, err
	}
	for name, dst := range map[string]**int64{"tailLines": &o.TailLines, "limitBytes": &o.LimitBytes} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || (name == "limitBytes" && n == 0) {
			return o, api.NewBadRequest(fmt.Sprintf("%s: invalid value %q", name, v))
		}
		*dst = &n
	}
	return o, nil
}

func queryBool(v, name string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, api.NewBadRequest(fmt.Sprintf("%s: invalid value %q", name, v))
	}
	return b, nil
}

// podLog serves GET pods/{name}/log: plain text, flushed as it comes when
// following.
func (s *Server) podLog(w http.ResponseWriter, r *http.Request, rt route) {
	if s.podLogs == nil {
		e := notFoundPath(r.URL.Path)
		e.Status.Message = "converge serves no container logs with in-memory runtimes (converge up --runtime containerd keeps them)"
		writeError(w, e)
		return
	}
	o, err := logOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	rc, err := s.podLogs(r.Context(), rt.Namespace, rt.Name, o)
	if err != nil {
		writeError(w, err)
		return
	}
	defer rc.Close()
	var body io.Reader = rc
	if o.LimitBytes != nil {
		body = io.LimitReader(rc, *o.LimitBytes)
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil && o.Follow {
				flusher.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
