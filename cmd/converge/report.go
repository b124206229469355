package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/traces"
)

// `converge report merge` is the last step of a sharded campaign in CI:
// every matrix job leaves a results file (converge check --report, or a
// go test run with CONVERGE_REPORT), and one job merges them into one
// summary, one results file and one exit code.

func init() {
	register(command{name: "report", summary: "merge the results files of a sharded campaign into one summary and exit code", run: runReport,
		examples: []string{
			"converge report merge shard-*.json --junit junit.xml --format github",
		}})
}

const reportUsage = "merge FILE.json... [--out FILE.json] [--junit FILE.xml] [--format text|github]"

func runReport(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "merge" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintf(stdout, "Usage: converge report %s\n", reportUsage)
			printExamples(stdout, commands["report"].examples, "report")
			return nil
		}
		return usageError("want the subcommand merge: converge report %s", reportUsage)
	}
	fs := newFlagSet("report merge", reportUsage[len("merge "):], stderr)
	out := fs.String("out", "", "write the merged results (same schema) here")
	junit := fs.String("junit", "", "write the merged results as JUnit XML here")
	format := fs.String("format", "text", "text, or github: also one ::error workflow command per failed check")
	files, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if *format != "text" && *format != "github" {
		return usageError("--format must be text or github, not %q", *format)
	}
	if len(files) == 0 {
		return usageError("merge: no results files")
	}
	var rs []properties.CheckResults
	for _, f := range files {
		r, err := properties.ReadResultsFile(f)
		if err != nil {
			return usageError("%v", err)
		}
		rs = append(rs, r)
	}
	m, err := properties.Merge(rs)
	if err != nil {
		return usageError("%v", err)
	}
	if *out != "" {
		if err := m.WriteFile(*out); err != nil {
			return fmt.Errorf("write %s: %w", *out, err)
		}
	}
	if *junit != "" {
		if err := writeJUnitFile(*junit, m); err != nil {
			return err
		}
	}
	writeSummary(stdout, m, *format == "github")
	if m.OK() {
		return nil
	}
	return &exitError{code: 1, err: fmt.Errorf("%d of %d checks failed, %d did not run", m.Failed, m.Checks, m.Checks-m.Passed-m.Failed)}
}

// writeSummary prints the merged campaign: totals, then each failure with
// its replay command and trace.
func writeSummary(w io.Writer, m properties.CheckResults, github bool) {
	fmt.Fprintf(w, "%s (target %s, seed %d): %d shards, %d checks, %d passed, %d failed, %d actions, %.1fs (longest shard)\n",
		m.Name, m.Target, m.Seed, len(m.Shards), m.Checks, m.Passed, m.Failed, m.Actions, m.Duration)
	for _, f := range m.Failures {
		fmt.Fprintf(w, "FAIL %s: %s\n  replay: %s\n", f.Name, firstLine(f.Failure), f.Replay)
		if f.Trace != "" {
			fmt.Fprintf(w, "  trace: %s\n", f.Trace)
		}
		if github {
			fmt.Fprintf(w, "::error title=%s::%s\n", traces.EscapeGitHubProperty(m.Name+" "+f.Name),
				traces.EscapeGitHubData(fmt.Sprintf("%s\nreplay: %s\ntrace: %s", f.Failure, f.Replay, f.Trace)))
		}
	}
}

func writeJUnitFile(path string, r properties.CheckResults) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write the JUnit report: %w", err)
	}
	if err := properties.WriteJUnit(f, r); err != nil {
		f.Close()
		return fmt.Errorf("write the JUnit report: %w", err)
	}
	return f.Close()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
