package properties

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// noopController reconciles nothing: replacing the endpoints controller
// with it must be caught (Endpoints never appear), which shows the
// user-controller path really replaces the built-in code.
type noopController struct{}

func (noopController) Reconcile(context.Context, controller.Request) (controller.Result, error) {
	return controller.Result{}, nil
}

func TestImplPropertyPassesWithTheBuiltInCode(t *testing.T) {
	defer defaultChecks(t, 20)()
	CheckController(t, cluster.ControllerSpec{Name: "watcher", Watches: []model.Kind{model.KindPod},
		New: func(cluster.ControllerEnv) controller.Reconciler { return noopController{} }}, ImplOptions{Faults: true})
}

func TestImplPropertyCatchesAControllerThatDoesNothing(t *testing.T) {
	defer SetRapidFlags(t, map[string]string{"rapid.checks": "200", "rapid.nofailfile": "true", "rapid.shrinktime": "3s"})()
	tb := NewReport(t.Name())
	spec := cluster.ControllerSpec{Name: model.EndpointsController, New: func(cluster.ControllerEnv) controller.Reconciler { return noopController{} }}
	CheckControllerTB(tb, t, spec, ImplOptions{})
	if !tb.failed {
		t.Fatal("an endpoints controller that does nothing passed")
	}
}

// defaultChecks runs a slow property with n checks unless the command line
// chose a number, so -rapid.checks=500 still makes a longer campaign.
func defaultChecks(t *testing.T, n int) func() {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(strings.TrimLeft(a, "-"), "rapid.checks") {
			return func() {}
		}
	}
	return SetRapidFlags(t, map[string]string{"rapid.checks": strconv.Itoa(n)})
}
