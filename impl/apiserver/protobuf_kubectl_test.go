package apiserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

var captureProtobuf = flag.Bool("capture", false, "record the real kubectl's protobuf request bodies into "+protobufFixtureDir)

const protobufFixtureDir = "testdata/protobuf"

// kubectlCreate is a kubectl command that writes with the typed clientset,
// so it sends protobuf; its body is kept as a fixture.
type kubectlCreate struct {
	fixture string // file under protobufFixtureDir
	args    []string
	path    string // where kubectl posts it
}

// kubectlCreates run in order: the last one needs the namespace the first
// one makes.
var kubectlCreates = []kubectlCreate{
	{"namespace.pb", []string{"create", "namespace", "dev"}, "/api/v1/namespaces"},
	{"deployment.pb", []string{"create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80"}, "/apis/apps/v1/namespaces/default/deployments"},
	{"service.pb", []string{"create", "service", "clusterip", "web", "--tcp=80:8080"}, "/api/v1/namespaces/default/services"},
	{"deployment-dev.pb", []string{"-n", "dev", "create", "deployment", "api", "--image=busybox"}, "/apis/apps/v1/namespaces/dev/deployments"},
}

// The real kubectl creates a namespace, deployments and a service over
// protobuf; the objects land in the registry as kubectl described them.
// With -capture the request bodies are written as the fixtures.
func TestKubectlCreatesOverProtobuf(t *testing.T) {
	k := newKubectlEnv(t)
	k, rec := recordThrough(t, k)
	for _, c := range kubectlCreates {
		rec.reset()
		if out := k.run(c.args...); !strings.Contains(out, "created") {
			t.Fatalf("kubectl %s: %s", strings.Join(c.args, " "), out)
		}
		body, ctype := rec.post(c.path)
		if ctype != protobufType {
			t.Fatalf("kubectl %s posted %q to %s, want %s", strings.Join(c.args, " "), ctype, c.path, protobufType)
		}
		if *captureProtobuf {
			if err := os.WriteFile(filepath.Join(protobufFixtureDir, c.fixture), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkKubectlCreates(t, k.reg)
}

// The committed fixtures replayed without kubectl: the same objects.
func TestProtobufFixturesCreateObjects(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), nil, nil)
	for _, c := range kubectlCreates {
		body, err := os.ReadFile(filepath.Join(protobufFixtureDir, c.fixture))
		if err != nil {
			t.Fatalf("%v (regenerate with go test -run TestKubectlCreatesOverProtobuf -capture)", err)
		}
		e.must(201, "POST", c.path, string(body), "Content-Type: "+protobufType)
	}
	checkKubectlCreates(t, e.reg)
}

// A PUT in protobuf updates like a PUT in JSON.
func TestProtobufUpdate(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), nil, nil)
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))
	label := pbBytes(pbBytes(nil, 1, []byte("app")), 2, []byte("web")) // a map entry
	meta := pbBytes(pbBytes(nil, 1, []byte("web")), 11, label)
	container := pbBytes(pbBytes(nil, 1, []byte("nginx")), 2, []byte("nginx:1.28"))
	template := pbBytes(pbBytes(nil, 1, pbBytes(nil, 11, label)), 2, pbBytes(nil, 2, container))
	spec := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5)
	spec = pbBytes(pbBytes(spec, 2, pbBytes(nil, 1, label)), 3, template)
	body := protobufBody("apps/v1", "Deployment", pbBytes(pbBytes(nil, 1, meta), 2, spec))
	e.must(200, "PUT", deployPath+"/web", body, "Content-Type: "+protobufType)
	obj, err := e.reg.Get(context.Background(), "deployments", "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	d := obj.(*api.Deployment)
	if *d.Spec.Replicas != 5 || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.28" {
		t.Fatalf("after the protobuf PUT: replicas %d, image %s", *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image)
	}
}

// pbBytes appends a length-delimited protobuf field.
func pbBytes(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

// protobufBody is a Kubernetes protobuf body: the magic, then a
// runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw}.
func protobufBody(apiVersion, kind string, raw []byte) string {
	tm := pbBytes(pbBytes(nil, 1, []byte(apiVersion)), 2, []byte(kind))
	return "k8s\x00" + string(pbBytes(pbBytes(nil, 1, tm), 2, raw))
}

// protobufNamespace is a v1 Namespace named name; extra is appended to
// the Namespace message.
func protobufNamespace(name string, extra ...byte) string {
	return protobufBody("v1", "Namespace", append(pbBytes(nil, 1, pbBytes(nil, 1, []byte(name))), extra...))
}

func checkKubectlCreates(t *testing.T, reg *registry.Registry) {
	t.Helper()
	ctx := context.Background()
	get := func(resource, ns, name string) api.Object {
		t.Helper()
		obj, err := reg.Get(ctx, resource, ns, name)
		if err != nil {
			t.Fatalf("%s %s/%s: %v", resource, ns, name, err)
		}
		return obj
	}
	get("namespaces", "", "dev")

	web := get("deployments", "default", "web").(*api.Deployment)
	c := web.Spec.Template.Spec.Containers
	if web.Spec.Replicas == nil || *web.Spec.Replicas != 2 || len(c) != 1 || c[0].Image != "nginx:1.27" ||
		len(c[0].Ports) != 1 || c[0].Ports[0].ContainerPort != 80 || web.Spec.Selector.MatchLabels["app"] != "web" {
		t.Fatalf("deployment web: %+v", web.Spec)
	}

	svc := get("services", "default", "web").(*api.Service)
	if p := svc.Spec.Ports; len(p) != 1 || p[0].Port != 80 || p[0].TargetPort.String() != "8080" || svc.Spec.Type != api.ServiceTypeClusterIP {
		t.Fatalf("service web: %+v", svc.Spec)
	}

	apiDep := get("deployments", "dev", "api").(*api.Deployment)
	if c := apiDep.Spec.Template.Spec.Containers; len(c) != 1 || c[0].Image != "busybox" || apiDep.Namespace != "dev" {
		t.Fatalf("deployment dev/api: %+v", apiDep)
	}
}

// bodyRecorder keeps the POST bodies that pass through it.
type bodyRecorder struct {
	mu    sync.Mutex
	posts []recordedPost
}

type recordedPost struct {
	path, ctype string
	body        []byte
}

func (r *bodyRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.posts = nil
}

// post is the last body posted to path, with its media type.
func (r *bodyRecorder) post(path string) ([]byte, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.posts) - 1; i >= 0; i-- {
		if p := r.posts[i]; p.path == path {
			return p.body, p.ctype
		}
	}
	return nil, "no POST"
}

// recordThrough puts a recording proxy between kubectl and k's server and
// returns an env whose kubeconfig points at the proxy.
func recordThrough(t *testing.T, k *kubectlEnv) (*kubectlEnv, *bodyRecorder) {
	t.Helper()
	kc, err := os.ReadFile(k.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	server, ca := kubeconfigValue(t, kc, "server"), kubeconfigValue(t, kc, "certificate-authority")
	target, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("no CA certificate in " + ca)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	rec := &bodyRecorder{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			rec.mu.Lock()
			rec.posts = append(rec.posts, recordedPost{path: r.URL.Path, ctype: r.Header.Get("Content-Type"), body: body})
			rec.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	// kubectl sends no token over plain HTTP, so the proxy has its own TLS.
	dir := filepath.Dir(k.kubeconfig)
	proxyCA := filepath.Join(dir, "proxy-ca.crt")
	if err := os.WriteFile(proxyCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(kc), "\n") {
		switch strings.TrimSpace(line) {
		case "server: " + server:
			line = strings.Replace(line, server, srv.URL, 1)
		case "certificate-authority: " + ca:
			line = strings.Replace(line, ca, proxyCA, 1)
		}
		out = append(out, line)
	}
	path := filepath.Join(dir, "kubeconfig-recorded")
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return &kubectlEnv{t: t, kubeconfig: path, reg: k.reg}, rec
}

// kubeconfigValue is the value of the first "key: value" line.
func kubeconfigValue(t *testing.T, kc []byte, key string) string {
	t.Helper()
	for _, line := range strings.Split(string(kc), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+": "); ok {
			return v
		}
	}
	t.Fatalf("no %s in kubeconfig:\n%s", key, kc)
	return ""
}

// kubectl drain deletes through the typed clientset, whose DeleteOptions
// body is protobuf; its options take effect as JSON ones would.
func TestProtobufDeleteOptions(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", podPath, podJSON("p", nil))
	dry := protobufBody("v1", "DeleteOptions", pbBytes(nil, 5, []byte("All")))
	e.must(200, "DELETE", podPath+"/p", dry, "Content-Type: "+protobufType)
	if r := e.must(200, "GET", podPath+"/p", ""); strings.Contains(string(r.body), "deletionTimestamp") {
		t.Fatalf("a dry-run delete marked the pod: %s", r.body)
	}
	badUID := protobufBody("v1", "DeleteOptions", pbBytes(nil, 2, pbBytes(nil, 1, []byte("not-the-uid"))))
	e.must(409, "DELETE", podPath+"/p", badUID, "Content-Type: "+protobufType)
	e.must(200, "DELETE", podPath+"/p", protobufBody("v1", "DeleteOptions", nil), "Content-Type: "+protobufType)
	e.must(404, "GET", podPath+"/p", "") // unbound: no kubelet to wait for
}

// Protobuf has no strict decoding upstream: a field number k8s.io/api's
// generated code does not know is skipped, and the object is created.
func TestProtobufSkipsUnknownFieldNumbers(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), nil, nil)
	e.must(201, "POST", "/api/v1/namespaces", protobufNamespace("ns", 0x48, 0x01), "Content-Type: "+protobufType)
	if _, err := e.reg.Get(context.Background(), "namespaces", "", "ns"); err != nil {
		t.Fatal(err)
	}
}
