package client

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// HTTPConfig says how to reach an apiserver over HTTP(S).
type HTTPConfig struct {
	// Server is the base URL, e.g. https://127.0.0.1:6443.
	Server string
	// Token is the bearer token ("" for none).
	Token string
	// CAPEM is the certificate authority of the server's TLS certificate.
	CAPEM []byte
	// Transport, if set, is used as is (tests).
	Transport http.RoundTripper
}

// httpClient speaks the Kubernetes REST conventions: the second Client, so
// the whole control plane can run through the apiserver as in the seeds.
type httpClient struct {
	base  *url.URL
	token string
	hc    *http.Client
}

var _ Client = (*httpClient)(nil)

// HTTP returns a Client that talks to an apiserver over HTTP(S).
func HTTP(cfg HTTPConfig) (Client, error) {
	base, err := url.Parse(cfg.Server)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("client: bad server URL %q", cfg.Server)
	}
	tr := cfg.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		if len(cfg.CAPEM) > 0 {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(cfg.CAPEM) {
				return nil, errors.New("client: the CA bundle holds no certificate")
			}
			t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
		tr = t
	}
	return &httpClient{base: base, token: cfg.Token, hc: &http.Client{Transport: tr}}, nil
}

// path is the REST path of a resource, a namespace's collection or one
// object, with an optional subresource.
func path(resource, namespace, name, sub string) (string, error) {
	ri, ok := api.LookupResource(resource)
	if !ok {
		return "", fmt.Errorf("%w: %s", api.ErrUnknownResource, resource)
	}
	p := "/api/" + ri.Version
	if ri.Group != "" {
		p = "/apis/" + ri.Group + "/" + ri.Version
	}
	if ri.Namespaced && namespace != "" {
		p += "/namespaces/" + url.PathEscape(namespace)
	}
	p += "/" + ri.Resource
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	if sub != "" {
		p += "/" + sub
	}
	return p, nil
}

func (c *httpClient) do(ctx context.Context, method, p string, q url.Values, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + p
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, statusError(resp)
	}
	return resp, nil
}

// statusError turns an error response into the *api.StatusError it carries.
func statusError(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var st api.Status
	if json.Unmarshal(data, &st) == nil && st.Kind == "Status" {
		return &api.StatusError{Status: st}
	}
	return &api.StatusError{Status: api.Status{Status: "Failure", Code: int32(resp.StatusCode), Message: strings.TrimSpace(string(data))}}
}

// object runs a request and decodes one object of the resource.
func (c *httpClient) object(ctx context.Context, method, resource, p string, q url.Values, body any) (api.Object, error) {
	resp, err := c.do(ctx, method, p, q, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	obj, err := api.New(resource)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, fmt.Errorf("client: decoding %s: %w", resource, err)
	}
	return obj, nil
}

func (c *httpClient) Get(ctx context.Context, resource, namespace, name string) (api.Object, error) {
	p, err := path(resource, namespace, name, "")
	if err != nil {
		return nil, err
	}
	return c.object(ctx, http.MethodGet, resource, p, nil, nil)
}

func (c *httpClient) List(ctx context.Context, resource, namespace string, o registry.ListOptions) (api.ListObject, error) {
	p, err := path(resource, namespace, "", "")
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	for k, v := range map[string]string{"labelSelector": o.LabelSelector, "fieldSelector": o.FieldSelector, "continue": o.Continue, "resourceVersion": o.ResourceVersion} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	resp, err := c.do(ctx, http.MethodGet, p, q, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	list, err := api.NewList(resource)
	if err != nil {
		return nil, err
	}
	if err := json.NewDecoder(resp.Body).Decode(list); err != nil {
		return nil, fmt.Errorf("client: decoding %s list: %w", resource, err)
	}
	return list, nil
}

func resourceOf(obj api.Object) (string, error) {
	ri, ok := api.ResourceFor(obj)
	if !ok {
		return "", fmt.Errorf("%w: %T", api.ErrUnknownResource, obj)
	}
	return ri.Resource, nil
}

func (c *httpClient) write(ctx context.Context, method string, obj api.Object, withName bool, sub string) (api.Object, error) {
	resource, err := resourceOf(obj)
	if err != nil {
		return nil, err
	}
	m := api.Meta(obj)
	name := ""
	if withName {
		name = m.Name
	}
	ns := m.Namespace
	if ri, _ := api.LookupResource(resource); ri.Namespaced && ns == "" {
		ns = "default"
	}
	p, err := path(resource, ns, name, sub)
	if err != nil {
		return nil, err
	}
	return c.object(ctx, method, resource, p, nil, obj)
}

func (c *httpClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.write(ctx, http.MethodPost, obj, false, "")
}

func (c *httpClient) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.write(ctx, http.MethodPut, obj, true, "")
}

func (c *httpClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.write(ctx, http.MethodPut, obj, true, "status")
}

func (c *httpClient) FinalizeNamespace(ctx context.Context, ns *api.Namespace) (api.Object, error) {
	if ns == nil {
		return nil, api.NewBadRequest("client: finalize: no namespace given")
	}
	return c.write(ctx, http.MethodPut, ns, true, "finalize")
}

func (c *httpClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	p, err := path(resource, namespace, name, "")
	if err != nil {
		return nil, err
	}
	opts.Kind, opts.APIVersion = "DeleteOptions", "v1"
	resp, err := c.do(ctx, http.MethodDelete, p, nil, opts)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var tm api.TypeMeta
	if json.Unmarshal(data, &tm) == nil && tm.Kind == "Status" {
		return nil, nil // deleted; the server sent no object
	}
	obj, err := api.New(resource)
	if err != nil {
		return nil, err
	}
	return obj, json.Unmarshal(data, obj)
}

func (c *httpClient) Bind(ctx context.Context, namespace, pod, node, expectRV string) (api.Object, error) {
	p, err := path("pods", namespace, pod, "binding")
	if err != nil {
		return nil, err
	}
	b := &api.Binding{
		TypeMeta:   api.TypeMeta{Kind: "Binding", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: pod, Namespace: namespace, ResourceVersion: expectRV},
		Target:     api.ObjectReference{Kind: "Node", Name: node, APIVersion: "v1"},
	}
	resp, err := c.do(ctx, http.MethodPost, p, nil, b)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	// The binding subresource answers with a Status; the pod is read back
	// so callers see its new resourceVersion, as from the registry.
	return c.Get(ctx, "pods", namespace, pod)
}

// Watch streams WatchEvents; the channel closes when ctx ends, the server
// ends the stream, or after an ERROR event.
func (c *httpClient) Watch(ctx context.Context, resource, namespace, rv string) (<-chan registry.ObjectEvent, error) {
	p, err := path(resource, namespace, "", "")
	if err != nil {
		return nil, err
	}
	q := url.Values{"watch": {"true"}, "allowWatchBookmarks": {"false"}}
	if rv != "" {
		q.Set("resourceVersion", rv)
	}
	resp, err := c.do(ctx, http.MethodGet, p, q, nil)
	if err != nil {
		return nil, err
	}
	out := make(chan registry.ObjectEvent, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			ev, ok := decodeWatchEvent(resource, sc.Bytes())
			if !ok {
				continue
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
			if ev.Type == registry.EventError {
				return
			}
		}
	}()
	return out, nil
}

func decodeWatchEvent(resource string, line []byte) (registry.ObjectEvent, bool) {
	var we api.WatchEvent
	if err := json.Unmarshal(line, &we); err != nil {
		return registry.ObjectEvent{Type: registry.EventError, Err: fmt.Errorf("client: bad watch event: %w", err)}, true
	}
	if we.Type == "BOOKMARK" {
		return registry.ObjectEvent{}, false
	}
	if we.Type == "ERROR" {
		var st api.Status
		_ = json.Unmarshal(we.Object.Raw, &st)
		return registry.ObjectEvent{Type: registry.EventError, Err: &api.StatusError{Status: st}}, true
	}
	obj, err := api.New(resource)
	if err == nil {
		err = json.Unmarshal(we.Object.Raw, obj)
	}
	if err != nil {
		return registry.ObjectEvent{Type: registry.EventError, Err: err}, true
	}
	rev, _ := strconv.ParseInt(api.Meta(obj).ResourceVersion, 10, 64)
	return registry.ObjectEvent{Type: string(we.Type), Object: obj, Rev: rev}, true
}
