package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	c := loadConfig(env(nil))
	if c.ip != "127.0.0.1" || c.port != "8080" || c.ignoreSIGTERM {
		t.Fatalf("defaults = %+v", c)
	}
	c = loadConfig(env(map[string]string{"POD_IP": "127.0.0.9", "PORT": "9000", "POD_NAME": "p", "ECHO_IGNORE_SIGTERM": "1"}))
	if c.ip != "127.0.0.9" || c.port != "9000" || c.pod != "p" || !c.ignoreSIGTERM {
		t.Fatalf("from env = %+v", c)
	}
}

func TestHandlerCountsRequestsButNotProbes(t *testing.T) {
	h := newHandler(config{pod: "echo-0", ip: "127.0.0.5"})
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	for want := int64(1); want <= 3; want++ {
		if rec := get("/healthz"); rec.Code != http.StatusOK || rec.Body.String() != "ok\n" {
			t.Fatalf("healthz = %d %q", rec.Code, rec.Body.String())
		}
		rec := get("/anything")
		body := rec.Body.String()
		if strings.Count(body, "\n") != 1 || !strings.HasSuffix(body, "\n") {
			t.Fatalf("reply is not one line: %q", body)
		}
		var r reply
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatal(err)
		}
		if r != (reply{Pod: "echo-0", IP: "127.0.0.5", Count: want}) {
			t.Fatalf("reply = %+v, want count %d", r, want)
		}
	}
}
