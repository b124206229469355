package operator_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

// BenchmarkProcessAgainstInProcess is the process check's rate against
// CheckOperator's on the same operator, in one run: b.N checks of about
// 10 steps each, first stepped in the test binary, then as its own
// process (go build ./cmd). It reports both rates and their ratio.
//
//	go test ./examples/operator -run '^$' -bench ProcessAgainstInProcess -benchtime 5x
func BenchmarkProcessAgainstInProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "manager")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd").CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd: %v\n%s", err, out)
	}
	flags := map[string]string{"rapid.checks": strconv.Itoa(b.N), "rapid.steps": "10", "rapid.seed": "1", "rapid.nofailfile": "true"}
	defer properties.SetRapidFlags(b, flags)()
	b.ResetTimer()

	inRep := properties.NewReport(b.Name())
	start := time.Now()
	rapid.Check(inRep, properties.OperatorProperty(b, webApp()))
	inProcess := time.Since(start)

	outRep := properties.NewReport(b.Name())
	start = time.Now()
	properties.CheckProcessTB(outRep, b, properties.Process{
		Command: []string{bin, "--health-probe-bind-address=0"},
		CRDs:    "config/crd/bases",
		Fields:  map[string][]crdgen.Option{"webapps": {crdgen.WithField("spec.image", images)}},
	})
	process := time.Since(start)
	b.StopTimer()
	for _, rep := range []*properties.Report{inRep, outRep} {
		if rep.Failed() {
			b.Fatalf("the shipped operator failed:\n%s", rep.Text())
		}
	}
	n := float64(b.N)
	b.ReportMetric(n/inProcess.Minutes(), "in-process-checks/min")
	b.ReportMetric(n/process.Minutes(), "process-checks/min")
	b.ReportMetric(inProcess.Seconds()/process.Seconds(), "process/in-process")
}
