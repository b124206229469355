package apiserver

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

func TestEnsureTLSServesAndIsReused(t *testing.T) {
	dir := t.TempDir()
	f, err := EnsureTLS(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(f.Cert)
	if _, err := EnsureTLS(dir); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(f.Cert)
	if string(first) != string(again) {
		t.Fatal("EnsureTLS regenerated existing files")
	}
	cfg, err := f.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = cfg
	srv.StartTLS()
	defer srv.Close()
	caPEM, _ := os.ReadFile(f.CA)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.crt is not PEM")
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfgWithRoots(pool)}}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("TLS with the generated CA: %v", err)
	}
	resp.Body.Close()
}

func cfgWithRoots(pool *x509.CertPool) *tls.Config { return &tls.Config{RootCAs: pool} }
