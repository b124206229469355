package tasks_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/converge-dev/converge/examples/foreign/probetest"
	"github.com/converge-dev/converge/examples/foreign/tasks"
	taskv1 "github.com/converge-dev/converge/examples/foreign/tasks/api/v1"
	"github.com/converge-dev/converge/properties"
)

func TestMain(m *testing.M) { properties.Main(m) }

func op() properties.Operator {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = taskv1.AddToScheme(s)
	return properties.Operator{CRDs: "config/crd/bases", Scheme: s, Setup: tasks.Setup}
}

func TestTasks(t *testing.T) { probetest.Check(t, op()) }

func TestTasksManualSelector(t *testing.T) {
	tasks.ManualSelector = true
	defer func() { tasks.ManualSelector = false }()
	probetest.Check(t, op())
}

func TestTasksBugGenerateName(t *testing.T) {
	tasks.BugGenerateName, tasks.ManualSelector = true, true
	defer func() { tasks.BugGenerateName, tasks.ManualSelector = false, false }()
	probetest.ExpectFailure(t, op())
}
