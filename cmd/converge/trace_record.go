package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

// `converge trace record` writes the golden scenarios' traces as the code
// of this checkout records them, so CI can diff them against the committed
// goldens (traces/testdata/traces) with `converge trace diff --format
// github` and annotate the first divergence on the pull request.

func runTraceRecord(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("trace record", traceSubcommands[3].usage, stderr)
	dir := fs.String("dir", ".", "write NAME.jsonl here")
	all := fs.Bool("all", false, "record every scenario")
	mutant := fs.String("mutant", "", "record on a deliberately wrong variant: "+mutantNames())
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	decisions, err := mutantDecisions(*mutant)
	if err != nil {
		return usageError("record: %v", err)
	}
	var scs []traces.Scenario
	if *all {
		if len(names) > 0 {
			return usageError("record: --all and scenario names")
		}
		scs = traces.Scenarios()
	}
	for _, n := range names {
		sc, ok := traces.ScenarioNamed(n)
		if !ok {
			return usageError("record: no scenario %q (one of %s)", n, scenarioNames())
		}
		scs = append(scs, sc)
	}
	if len(scs) == 0 {
		return usageError("record: name a scenario or give --all (%s)", scenarioNames())
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	for _, sc := range scs {
		var buf bytes.Buffer
		if _, err := traces.RecordScenario(sc, model.Config{Decisions: decisions}, &buf); err != nil {
			return fmt.Errorf("record %s: %w", sc.Name, err)
		}
		path := filepath.Join(*dir, sc.Name+".jsonl")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		fmt.Fprintln(stdout, path)
	}
	return nil
}

func scenarioNames() string {
	var names []string
	for _, sc := range traces.Scenarios() {
		names = append(names, sc.Name)
	}
	return strings.Join(names, ", ")
}
