package apiserver

import (
	"strings"
	"testing"
)

// TestKubectlValidateModes: kubectl's --validate picks the fieldValidation
// it sends, and a ConfigMap with a field its kind lacks gets upstream's
// answer for each: strict (the default) refuses it with the strict
// decoding error, warn creates it without the field and prints the
// server's warning, false (Ignore) creates it silently.
func TestKubectlValidateModes(t *testing.T) {
	k := newKubectlEnv(t)
	cm := func(name string) string {
		return k.manifest(name+".yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+name+"}\ndata: {k: v}\ndatum: {x: y}\n")
	}
	out, err := k.try("apply", "-f", cm("strict"))
	if err == nil || !strings.Contains(out, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datum"`) {
		t.Fatalf("--validate=strict: err %v\n%s", err, out)
	}
	out = k.run("apply", "--validate=warn", "-f", cm("warned"))
	if !strings.Contains(out, `Warning: unknown field "datum"`) || !strings.Contains(out, "configmap/warned created") {
		t.Fatalf("--validate=warn:\n%s", out)
	}
	out = k.run("apply", "--validate=false", "-f", cm("ignored"))
	if strings.Contains(out, "Warning") || !strings.Contains(out, "configmap/ignored created") {
		t.Fatalf("--validate=false:\n%s", out)
	}
	// (kubectl's last-applied annotation keeps the field, as written.)
	if out := k.run("get", "configmap", "warned", "-o", "yaml"); strings.Contains(out, "\ndatum:") || !strings.Contains(out, "k: v") {
		t.Fatalf("the warned ConfigMap as stored:\n%s", out)
	}
	if out, err := k.try("get", "configmap", "strict"); err == nil || !strings.Contains(out, "NotFound") {
		t.Fatalf("the refused ConfigMap was stored: %v\n%s", err, out)
	}
}
