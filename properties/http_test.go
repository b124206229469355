package properties

import (
	"net/http/httptest"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// TestLockstepOverHTTP runs the lockstep property with every component
// talking to the apiserver over HTTP, as in the seed documents.
func TestLockstepOverHTTP(t *testing.T) {
	defer defaultChecks(t, 20)()
	rapid.Check(t, func(rt *rapid.T) {
		st := storetest.Store(t)
		// Timestamps are masked; a fixed clock keeps them non-zero.
		clock := func() time.Time { return time.Unix(1, 0).UTC() }
		srv, err := apiserver.New(apiserver.Config{Registry: registry.New(registry.Config{Store: st, Clock: clock})})
		if err != nil {
			rt.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		defer ts.Close()
		c, err := client.HTTP(client.HTTPConfig{Server: ts.URL})
		if err != nil {
			rt.Fatal(err)
		}
		s, err := cluster.NewStepped(cluster.SteppedConfig{Store: st, Client: c})
		if err != nil {
			rt.Fatal(err)
		}
		defer s.Close()
		Lockstep(rt, s, LockstepOptions{Faults: true})
	})
}
