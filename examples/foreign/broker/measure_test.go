package broker_test

import (
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/examples/foreign/broker"
	"github.com/converge-dev/converge/properties"
)

// The measurement of the seeded bugs: which ones CheckOperator catches, on
// which seeds, how fast, and how small the shrunk failure is. It is not a
// pass/fail test (a bug the check misses is a figure, not a broken build),
// so it runs only when asked:
//
//	go test -count=1 ./examples/foreign/broker -run TestMeasure -catalogue.measure -v -timeout 60m
var (
	measure   = flag.Bool("catalogue.measure", false, "measure the seeded bugs (TestMeasure)")
	budget    = flag.Duration("catalogue.budget", 30*time.Second, "search time per bug and seed, before the shrink")
	maxChecks = flag.Int("catalogue.checks", 300, "checks per bug and seed, and for the correct reconciler")
	shrink    = flag.Duration("catalogue.shrink", 10*time.Second, "shrink time of a failure")
	seedList  = flag.String("catalogue.seeds", "1,2,3", "seeds, comma-separated")
	correctT  = flag.Duration("catalogue.correctbudget", 0, "search time per seed for the correct reconciler (0: the checks alone bound it)")
	onlyBugs  = flag.String("catalogue.bugs", "", "regexp of the bugs to measure (default all)")
	noWorld   = flag.Bool("catalogue.noworldfaults", false, "turn off the world's faults (Operator.NoWorldFaults) for every run")
)

// catalogue is the seeded bugs, with the public bug each is modelled on
// (bugs.go says more).
var catalogue = []struct {
	name   string
	on     *bool
	source string
}{
	{"BugDeleteByName", &broker.BugDeleteByName, "Sieve stale state: rabbitmq/cluster-operator#648, datastax/cass-operator#412"},
	{"BugSkipWhenObserved", &broker.BugSkipWhenObserved, "Sieve unobserved state; operator-framework/operator-sdk#2636"},
	{"BugNoDeploymentWatch", &broker.BugNoDeploymentWatch, "instaclustr/cassandra-operator#40; OT-CONTAINER-KIT/redis-operator#988"},
	{"BugRestartOnlyOnConfigWrite", &broker.BugRestartOnlyOnConfigWrite, "Sieve intermediate state: konpyutaika/nifikop#49"},
	{"BugFinalizerFirst", &broker.BugFinalizerFirst, "Sieve intermediate state; ISSTA'24 resource cleanup"},
	{"BugRegistryExistsIsDone", &broker.BugRegistryExistsIsDone, "ISSTA'24 existing-resource handling"},
	{"BugOverwriteMetadata", &broker.BugOverwriteMetadata, "rabbitmq/cluster-operator#999"},
	{"BugRegistryMergePatch", &broker.BugRegistryMergePatch, "Sieve stale state; ISSTA'24 concurrency (lost update)"},
	{"BugNoOwnerOnConfig", &broker.BugNoOwnerOnConfig, "pravega/zookeeper-operator#42"},
	{"BugStatusFromSpec", &broker.BugStatusFromSpec, "ISSTA'24 incorrect status; xlab-uiuc/acto#340"},
	{"BugPortOnlyOnCreate", &broker.BugPortOnlyOnCreate, "Acto: rabbitmq/cluster-operator#992, tarantool-operator#61"},
	{"BugSwallowDeploymentError", &broker.BugSwallowDeploymentError, "ISSTA'24 error handling; OT-CONTAINER-KIT/redis-operator#1097"},
	{"BugPausedBlocksDelete", &broker.BugPausedBlocksDelete, "xlab-uiuc/acto#62"},
	{"BugGeneratedConfigName", &broker.BugGeneratedConfigName, "libopenstorage/operator#674; Sieve intermediate state"},
	{"BugAvailableIgnoresRollout", &broker.BugAvailableIgnoresRollout, "kstatus observedGeneration; ISSTA'24 incorrect status"},
}

// outcome is one (operator, seed) search.
type outcome struct {
	caught bool
	checks int           // checks run before the failure, or in all
	found  time.Duration // to the first failure
	drawn  int           // drawn actions of the shrunk failure, -1 if unknown
	first  string        // the failure's first line
	total  time.Duration
}

var (
	drawnRE  = regexp.MustCompile(`steps \((\d+) drawn actions`)
	failedRE = regexp.MustCompile(`failed after \d+ tests?: (.*)`)
)

// search runs the check on one seed with a recording TB, as
// probetest.ExpectFailure does, and stops searching (the property returns
// at once) when the budget is spent; a failure found is shrunk in full.
func search(t *testing.T, op properties.Operator, seed string, budget time.Duration) outcome {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": strconv.Itoa(*maxChecks), "rapid.seed": seed,
		"rapid.nofailfile": "true", "rapid.shrinktime": shrink.String()})()
	rep := properties.NewReport(t.Name())
	prop := properties.OperatorProperty(t, op)
	var o outcome
	start := time.Now()
	rapid.Check(rep, func(rt *rapid.T) {
		if o.found == 0 {
			if budget > 0 && time.Since(start) > budget {
				return
			}
			o.checks++
		}
		defer func() {
			if rt.Failed() && o.found == 0 {
				o.found = time.Since(start)
			}
		}()
		prop(rt)
	})
	o.total = time.Since(start)
	o.caught = rep.Failed()
	text := rep.Text()
	if o.caught {
		// The failure itself, so a reader can tell the seeded bug's catch
		// from another one.
		t.Logf("seed %s failure:\n%s", seed, excerpt(text))
	}
	o.drawn = -1
	if m := drawnRE.FindAllStringSubmatch(text, -1); len(m) > 0 {
		o.drawn, _ = strconv.Atoi(m[len(m)-1][1])
	}
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if m := failedRE.FindStringSubmatch(line); m != nil {
				line = m[1]
			}
			o.first = line
			break
		}
	}
	return o
}

// excerpt is the failure up to its replay hint, without rapid's draw log.
func excerpt(text string) string {
	var keep []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "To reproduce") {
			break
		}
		keep = append(keep, line)
	}
	s := strings.Join(keep, "\n")
	if len(s) > 6000 {
		s = s[:6000] + "\n...[truncated]"
	}
	return s
}

// row is one line of the table: an operator over every seed.
type row struct {
	name, source string
	outs         []outcome
}

func (r row) caught() (n int) {
	for _, o := range r.outs {
		if o.caught {
			n++
		}
	}
	return n
}

func (r row) markdown() string {
	var found []time.Duration
	var drawn []int
	first := "-"
	for _, o := range r.outs {
		if !o.caught {
			continue
		}
		found = append(found, o.found)
		if o.drawn >= 0 {
			drawn = append(drawn, o.drawn)
		}
		if first == "-" {
			first = o.first
		}
	}
	medFound, medDrawn := "-", "-"
	if len(found) > 0 {
		sort.Slice(found, func(i, j int) bool { return found[i] < found[j] })
		medFound = found[len(found)/2].Round(100 * time.Millisecond).String()
	}
	if len(drawn) > 0 {
		sort.Ints(drawn)
		medDrawn = strconv.Itoa(drawn[len(drawn)/2])
	}
	if len(first) > 140 {
		first = first[:140] + "..."
	}
	first = strings.ReplaceAll(first, "|", `\|`)
	return fmt.Sprintf("| %s | %s | %d | %s | %s | %s |", r.name, r.source, r.caught(), medFound, medDrawn, first)
}

func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("a measurement, not a pass/fail test: run it with go test -count=1 ./examples/foreign/broker -run TestMeasure -catalogue.measure -v -timeout 60m")
	}
	seeds := strings.Split(*seedList, ",")
	only := regexp.MustCompile(*onlyBugs)
	var rows []row
	run := func(name, source string, op func() properties.Operator, budget time.Duration, set *bool) {
		r := row{name: name, source: source}
		t.Run(name, func(t *testing.T) {
			if set != nil {
				*set = true
				defer func() { *set = false }()
			}
			for _, seed := range seeds {
				checked := op()
				checked.NoWorldFaults = *noWorld
				o := search(t, checked, seed, budget)
				t.Logf("seed %s: caught=%v after %d checks, found in %v, %d drawn actions, %v in all: %s",
					seed, o.caught, o.checks, o.found.Round(time.Millisecond), o.drawn, o.total.Round(time.Millisecond), o.first)
				r.outs = append(r.outs, o)
			}
		})
		rows = append(rows, r)
	}
	run("correct reconciler, free-form image", "false-alarm check", freeFormOp, *budget, nil)
	for _, b := range catalogue {
		if only.MatchString(b.name) {
			run(b.name, b.source, op, *budget, b.on)
		}
	}
	run("correct reconciler", "false-alarm check", op, *correctT, nil)

	var out strings.Builder
	fmt.Fprintf(&out, "\nseeds %s; per bug and seed: %v or %d checks, shrink %v; world faults %v\n\n", *seedList, *budget, *maxChecks, *shrink, !*noWorld)
	out.WriteString("| bug | public source | caught seeds (of " + strconv.Itoa(len(seeds)) + ") | median time to find | median shrunk drawn actions | first line of the failure |\n|---|---|---|---|---|---|\n")
	bugs, twice := 0, 0
	for _, r := range rows {
		out.WriteString(r.markdown() + "\n")
		if r.source == "false-alarm check" {
			continue
		}
		bugs++
		if r.caught() >= 2 {
			twice++
		}
	}
	fmt.Fprintf(&out, "\ncaught by >=2 of %d seeds: %d of %d\n", len(seeds), twice, bugs)
	for _, r := range rows {
		if r.source != "false-alarm check" {
			continue
		}
		checks, verdict := 0, "passed"
		for _, o := range r.outs {
			checks += o.checks
			if o.caught {
				verdict = "FAILED: " + o.first
			}
		}
		fmt.Fprintf(&out, "%s: %s (%d checks over %d seeds)\n", r.name, verdict, checks, len(r.outs))
	}
	fmt.Print(out.String())
}
