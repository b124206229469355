package properties

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML is the results format every CI system reads (GitHub via test
// reporter actions, GitLab, Jenkins, Buildkite). A campaign is one
// testsuite: one testcase per failed check with its failure, script,
// replay command and trace, or one passing testcase that sums up the
// checks when all passed. Seed, shard and steps are suite properties.

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes r as a JUnit XML report.
func WriteJUnit(w io.Writer, r CheckResults) error {
	class := "converge." + r.Target
	s := junitSuite{Name: r.Name, Tests: max(r.Passed+r.Failed, 1), Failures: r.Failed, Time: secs(r.Duration),
		Properties: []junitProperty{
			{"schema", r.Schema}, {"target", r.Target}, {"seed", fmt.Sprint(r.Seed)},
			{"shard", r.Shard}, {"steps", fmt.Sprint(r.Steps)}, {"checks", fmt.Sprint(r.Checks)},
		}}
	for _, f := range r.Failures {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n\nfails at step %d; seed %d\n", f.Failure, f.FailStep, f.Seed)
		if len(f.Script) > 0 {
			fmt.Fprintf(&b, "script (%d actions):\n  %s\n", len(f.Script), strings.Join(f.Script, "\n  "))
		}
		fmt.Fprintf(&b, "replay: %s\n", f.Replay)
		if f.Trace != "" {
			fmt.Fprintf(&b, "trace: %s\n", f.Trace)
		}
		msg, _, _ := strings.Cut(f.Failure, "\n")
		s.Cases = append(s.Cases, junitCase{Name: f.Name, Classname: class, Time: secs(f.Duration),
			Failure: &junitFailure{Message: msg, Type: "property", Text: b.String()}})
	}
	if len(r.Failures) == 0 {
		name := fmt.Sprintf("%d checks", r.Checks)
		if r.Shard != "" {
			name += " (shard " + r.Shard + ")"
		}
		s.Cases = append(s.Cases, junitCase{Name: name, Classname: class, Time: secs(r.Duration),
			SystemOut: fmt.Sprintf("%d of %d checks passed, %d actions, seed %d", r.Passed, r.Checks, r.Actions, r.Seed)})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func secs(f float64) string { return fmt.Sprintf("%.3f", f) }
