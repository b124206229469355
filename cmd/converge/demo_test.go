package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestDemoConverges(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"demo"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"CREATE replicasets/myapp-", "BIND pods/myapp-", "RUNTIME-START containers/node-", "PROXY-SET rules/myapp", "== converged"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
}

func TestDemoRejectsBadFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"demo", "--nodes", "0"}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if lines := strings.Count(strings.TrimSpace(errOut.String()), "\n"); lines != 0 {
		t.Errorf("want one line of error, got %q", errOut.String())
	}
}
