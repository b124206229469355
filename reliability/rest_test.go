package reliability

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"sigs.k8s.io/yaml"
)

// kube is a bare JSON client of one apiserver.
type kube struct {
	base, token string
	hc          *http.Client
	tls         *tls.Config // nil over plain HTTP
}

// kubeFromKubeconfig reads the server, CA and token converge up wrote.
func kubeFromKubeconfig(path string) (*kube, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server string `json:"server"`
				CA     string `json:"certificate-authority-data"`
			} `json:"cluster"`
		} `json:"clusters"`
		Users []struct {
			User struct {
				Token string `json:"token"`
			} `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(data, &kc); err != nil || len(kc.Clusters) == 0 || len(kc.Users) == 0 {
		return nil, fmt.Errorf("kubeconfig %s: %v", path, err)
	}
	ca, err := base64.StdEncoding.DecodeString(kc.Clusters[0].Cluster.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tc := &tls.Config{RootCAs: pool}
	tr := &http.Transport{TLSClientConfig: tc, MaxIdleConnsPerHost: 128}
	return &kube{base: kc.Clusters[0].Cluster.Server, token: kc.Users[0].User.Token,
		hc: &http.Client{Transport: tr, Timeout: 5 * time.Second}, tls: tc}, nil
}

// obj is an API object as JSON sees it.
type obj = map[string]any

// call sends one request; a transport error is returned as err, any HTTP
// answer as its code and decoded body.
func (k *kube) call(ctx context.Context, method, path string, body any) (int, obj, error) {
	return k.callType(ctx, method, path, "application/json", body)
}

// callType is call with the body's content type (a patch's kind).
func (k *kube) callType(ctx context.Context, method, path, ctype string, body any) (int, obj, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, k.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json")
	if k.token != "" {
		req.Header.Set("Authorization", "Bearer "+k.token)
	}
	resp, err := k.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	var o obj
	if len(data) > 0 {
		if err := json.Unmarshal(data, &o); err != nil {
			return resp.StatusCode, nil, fmt.Errorf("%s %s: %d, not JSON: %q", method, path, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, o, nil
}

// record is the object the tests write: a legacy core/v1 Event, which no
// controller reacts to, whose message holds the value. (converge serves no
// ConfigMaps.)
func record(name, value, rv string) obj {
	meta := obj{"name": name, "namespace": "default"}
	if rv != "" {
		meta["resourceVersion"] = rv
	}
	return obj{"apiVersion": "v1", "kind": "Event", "metadata": meta, "message": value, "reason": "Test",
		"involvedObject": obj{"kind": "Pod", "namespace": "default", "name": "reliability"}}
}

// recPath is where records live; value reads a record's value.
const recPath = "/api/v1/namespaces/default/events"

func value(o obj) string { return field(o, "message") }

// field digs a string out of o along path; "" if absent.
func field(o obj, path ...string) string {
	var cur any = o
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[p]
	}
	switch v := cur.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// rvOf reads a resourceVersion as the number converge's are (etcd
// revisions), so that the tests can say one is not behind another.
func rvOf(o obj) int64 {
	n, _ := strconv.ParseInt(field(o, "metadata", "resourceVersion"), 10, 64)
	return n
}
