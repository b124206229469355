package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// DefaultMaxBodyBytes caps request bodies, as Kubernetes' 3 MiB.
const DefaultMaxBodyBytes = 3 << 20

// VersionInfo is the body of /version.
type VersionInfo struct {
	Major      string `json:"major"`
	Minor      string `json:"minor"`
	GitVersion string `json:"gitVersion"`
	GitCommit  string `json:"gitCommit"`
	Platform   string `json:"platform"`
	GoVersion  string `json:"goVersion"`
	Compiler   string `json:"compiler"`
	BuildDate  string `json:"buildDate"`
}

// Config configures a Server.
type Config struct {
	// Registry serves the verbs. Required.
	Registry *registry.Registry
	// Auth authenticates and authorizes requests; nil lets everyone in as
	// system:anonymous.
	Auth *Auth
	// MaxBodyBytes caps request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Version is served at /version; zero means a v1.32 converge build.
	Version VersionInfo
	// BookmarkInterval is how often a watch with allowWatchBookmarks gets a
	// BOOKMARK; 0 means one minute, as in Kubernetes.
	BookmarkInterval time.Duration
	// Log receives recovered panics; nil logs to stderr.
	Log *log.Logger
	// PodLogs serves pods/{name}/log; nil answers it with a 404 that says
	// converge keeps no logs.
	PodLogs PodLogs
	// Tracker, if set, hears every authenticated request as it starts and
	// ends, and may refuse it (tracker.go).
	Tracker Tracker
}

// Server is the HTTP apiserver.
type Server struct {
	reg      *registry.Registry
	auth     *Auth
	maxBody  int64
	version  VersionInfo
	bookmark time.Duration
	log      *log.Logger
	openapi  http.Handler
	podLogs  PodLogs
	tracker  Tracker
}

// New checks cfg and returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Registry == nil {
		return nil, errors.New("apiserver: Config.Registry is required")
	}
	s := &Server{reg: cfg.Registry, auth: cfg.Auth, maxBody: cfg.MaxBodyBytes,
		version: cfg.Version, bookmark: cfg.BookmarkInterval, log: cfg.Log, podLogs: cfg.PodLogs, tracker: cfg.Tracker}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.version.GitVersion == "" {
		s.version = VersionInfo{Major: "1", Minor: "32", GitVersion: api.Version,
			Platform: "linux/amd64", Compiler: "gc", GoVersion: "go1.26"}
	}
	if s.bookmark <= 0 {
		s.bookmark = time.Minute
	}
	// Parse the field manager's schemas now (about 0.1 s, once per
	// process), not in the first write's latency.
	typeConverter()
	if s.log == nil {
		s.log = log.New(os.Stderr, "apiserver: ", log.LstdFlags)
	}
	s.openapi = openAPIHandler()
	return s, nil
}

// Handler serves the whole API: recover, authenticate, then route.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer s.recoverPanic(w, r)
		s.serve(w, r)
	})
}

// recoverPanic turns a panic into a 500 Status. Headers may already be out
// (a watch), in which case the connection just ends.
func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	s.log.Printf("panic serving %s %s: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
	writeError(w, api.NewInternalError(fmt.Errorf("apiserver: panic: %v", v)))
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	user, err := s.auth.authenticate(r)
	if err != nil {
		writeError(w, err)
		return
	}
	s.track(w, r, user, func(w http.ResponseWriter, r *http.Request) { s.serveAs(w, r, user) })
}

// serveUntracked is serve without the Tracker: for a request served
// again in another form (an events.k8s.io/v1 write, as core/v1), which
// the Tracker has heard once already.
func (s *Server) serveUntracked(w http.ResponseWriter, r *http.Request) {
	user, err := s.auth.authenticate(r)
	if err != nil {
		writeError(w, err)
		return
	}
	s.serveAs(w, r, user)
}

// serveAs serves an authenticated request.
func (s *Server) serveAs(w http.ResponseWriter, r *http.Request, user User) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/openapi/"):
		s.openapi.ServeHTTP(w, r) // negotiates its own formats
		return
	case path == "/healthz" || path == "/livez" || path == "/readyz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
		return
	}
	if err := checkAccept(r); err != nil {
		writeError(w, err)
		return
	}
	if s.serveNonResource(w, r, path) {
		return
	}
	if isEventsV1Resource(path) {
		s.serveEventsV1(w, r, s.serveUntracked) // authenticated again, as core/v1
		return
	}
	switch strings.TrimSuffix(path, "/") {
	case accessReviewPath:
		s.accessReview(w, r, user)
		return
	case rulesReviewPath:
		s.rulesReview(w, r, user)
		return
	case selfReviewPath:
		s.selfReview(w, r, user)
		return
	}
	rt, err := parseRoute(path)
	if err != nil {
		writeError(w, err)
		return
	}
	verb := verbOf(r, rt)
	if err := s.auth.authorize(user, verb, rt); err != nil {
		writeError(w, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
	// dryRun=All runs a write through every check without storing it
	// (kubectl diff, --dry-run=server); the registry sees it in the context.
	if dry, err := registry.CheckDryRun(r.URL.Query()["dryRun"]); err != nil {
		writeError(w, err)
		return
	} else if dry {
		r = r.WithContext(registry.WithDryRun(r.Context()))
	}
	// As kube-apiserver, an update that changes nothing writes nothing.
	r = r.WithContext(registry.SkipUnchanged(r.Context()))
	s.serveResource(w, r, rt, verb)
}

// checkAccept is 406 unless the client takes JSON. Kubernetes clients list
// JSON (possibly with parameters such as as=Table) as a fallback.
func checkAccept(r *http.Request) error {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return nil
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "*/*", "application/*", "application/json":
			return nil
		}
	}
	return api.NewNotAcceptable([]string{"application/json"})
}

// writeJSON writes v with code as application/json.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := api.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(api.NewInternalError(err).Status)
	}
	writeBody(w, code, append(b, '\n'))
}

// writeBody writes an already encoded JSON body.
func writeBody(w http.ResponseWriter, code int, b []byte) {
	writeBodyAs(w, "application/json", code, b)
}

// writeBodyAs writes an already encoded body of media type contentType.
func writeBodyAs(w http.ResponseWriter, contentType string, code int, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// writeRawList writes a list whose items are already JSON, as writeJSON
// would write the decoded list.
func writeRawList(w http.ResponseWriter, l *registry.RawList) {
	head, err := json.Marshal(struct {
		api.TypeMeta
		Metadata api.ListMeta `json:"metadata"`
	}{l.TypeMeta, l.ListMeta})
	if err != nil {
		writeError(w, api.NewInternalError(err))
		return
	}
	size := len(head) + 16
	for _, it := range l.Items {
		size += len(it) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, head[:len(head)-1]...) // reopen the object for items
	b = append(b, `,"items":[`...)
	for i, it := range l.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	writeBody(w, http.StatusOK, append(b, "]}\n"...))
}

// writeError writes err as a Status with its code (500 for plain errors).
func writeError(w http.ResponseWriter, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = api.NewRequestEntityTooLarge(fmt.Sprintf("limit is %d", mbe.Limit))
	}
	st := api.StatusOf(err)
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
		st.Code = int32(code)
	}
	if st.Kind == "" {
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	}
	writeJSON(w, code, &st)
}

// successStatus is the Status a binding or a delete-by-status answers with.
func successStatus(code int) *api.Status {
	return &api.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: api.StatusSuccess, Code: int32(code)}
}
