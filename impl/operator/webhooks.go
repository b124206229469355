package operator

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// webhooks is the manager's webhook server. It listens nowhere and needs
// no certificates: Host.Admission calls the handlers the operator
// registered in-process, as the registry writes. A Setup written as
// cmd/main.go's, with its SetupWebhookWithManager calls, starts as it is.
type webhooks struct {
	mu    sync.Mutex
	paths []string
	mux   *http.ServeMux
}

var _ webhook.Server = (*webhooks)(nil)

func newWebhooks() *webhooks { return &webhooks{mux: http.NewServeMux()} }

func (w *webhooks) NeedLeaderElection() bool { return false }

func (w *webhooks) Register(path string, hook http.Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.mux.Handle(path, hook) // panics on a path registered twice, as the real server does
	w.paths = append(w.paths, path)
}

func (w *webhooks) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (w *webhooks) StartedChecker() healthz.Checker { return healthz.Ping }

func (w *webhooks) WebhookMux() *http.ServeMux { return w.mux }

func (w *webhooks) registered() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := slices.Clone(w.paths)
	slices.Sort(out)
	return out
}

// handler is the handler registered at path, if any (none before the
// operator's first start).
func (w *webhooks) handler(path string) (http.Handler, bool) {
	if w == nil {
		return nil, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.paths, path) {
		return nil, false
	}
	h, _ := w.mux.Handler(&http.Request{Method: http.MethodPost, URL: &url.URL{Path: path}})
	return h, true
}
