package mutants_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/mutants"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// hunt is one campaign against a mutant: the body of
// properties.CheckControllerTB, timed up to the first failure.
type hunt struct {
	found  bool
	checks int           // checks run until the first failure, itself included
	find   time.Duration // time to the first failure
	total  time.Duration // with shrinking
	length int           // actions in the shrunk script, recovery and quiesce included
	drawn  int           // of those, the actions rapid drew (what shrinking can remove)
	report string
}

var scriptLength = regexp.MustCompile(`script \((\d+) actions\)`)

// settings are one campaign's rapid flags.
type settings struct {
	seed   uint64
	checks int
	steps  int
	shrink time.Duration
}

func run(t *testing.T, m mutants.Mutant, c settings) hunt {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{
		"rapid.checks": strconv.Itoa(c.checks), "rapid.seed": strconv.FormatUint(c.seed, 10), "rapid.steps": strconv.Itoa(c.steps),
		"rapid.nofailfile": "true", "rapid.shrinktime": c.shrink.String(),
	})()
	rec := properties.NewReport(t.Name())
	var h hunt
	start := time.Now()
	rapid.Check(rec, func(rt *rapid.T) {
		if !h.found {
			h.checks++
		}
		defer func() {
			if rt.Failed() && !h.found {
				h.found, h.find = true, time.Since(start)
			}
		}()
		s, err := cluster.NewStepped(cluster.SteppedConfig{Store: storetest.Store(t), Controllers: []cluster.ControllerSpec{m.Spec}})
		if err != nil {
			rt.Fatal(err)
		}
		defer s.Close()
		o := properties.ImplOptions{Faults: true, Settle: m.Settle}
		if m.TimeTravel {
			o.TimeTravel = []string{m.Spec.Name}
		}
		properties.Impl(rt, s, o)
	})
	h.total, h.report = time.Since(start), rec.Text()
	h.found = h.found && rec.Failed()
	if sm := scriptLength.FindStringSubmatch(h.report); sm != nil {
		h.length, _ = strconv.Atoi(sm[1])
	}
	if i := strings.Index(h.report, "Failed test output:"); i >= 0 {
		h.drawn = strings.Count(h.report[i:], `draw action: "action"`)
	}
	return h
}
