package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

func init() {
	register(command{name: "trace", summary: "diff or replay recorded traces, or view one as an HTML timeline", run: runTrace})
}

// traceSubcommands are listed by `converge trace --help`, in this order.
var traceSubcommands = []struct{ name, usage, summary string }{
	{"diff", "A B [--mask FIELD]... [--json] [--context N] [--color auto|always|never]",
		"align two traces and show the first divergence (exit 0 equal, 1 differ, 2 bad input)"},
	{"view", "A [-o A.html]", "write a self-contained HTML swim-lane timeline of a trace"},
	{"replay", "A [--against model]",
		"re-run a trace's actions and name the first event that departs (exit 0 reproduced, 1 departs, 2 bad input)"},
}

func runTrace(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		traceUsage(stderr)
		return usageError("missing subcommand (diff, view or replay)")
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		traceUsage(stdout)
		return nil
	case "diff":
		return runTraceDiff(args[1:], stdout, stderr)
	case "view":
		return runTraceView(args[1:], stdout, stderr)
	case "replay":
		return runTraceReplay(args[1:], stdout, stderr)
	}
	return usageError("unknown subcommand %q (see converge trace --help)", args[0])
}

func traceUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: converge trace <subcommand> [flags]\n\nSubcommands:")
	for _, s := range traceSubcommands {
		fmt.Fprintf(w, "  %-6s %s\n         %s\n", s.name, s.usage, s.summary)
	}
	fmt.Fprintf(w, "\nMaskable fields: %s\n", strings.Join(traces.MaskFields(), ", "))
}

// maskList is a repeatable --mask flag; each value may also be a comma list.
type maskList []string

func (m *maskList) String() string { return strings.Join(*m, ",") }

func (m *maskList) Set(v string) error {
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*m = append(*m, f)
		}
	}
	return traces.ValidateMask(*m)
}

func runTraceDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("trace diff", traceSubcommands[0].usage, stderr)
	var mask maskList
	fs.Var(&mask, "mask", "ignore this field too (repeatable): "+strings.Join(traces.MaskFields(), ", "))
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	context := fs.Int("context", traces.DefaultContext, "equal events shown around the first divergence")
	color := fs.String("color", "auto", "colour the text diff: auto (when stdout is a terminal and NO_COLOR is unset), always, never")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 2 {
		return usageError("diff: want two trace files A and B, got %d argument(s)", len(paths))
	}
	if *context < 0 {
		return usageError("diff: --context must be 0 or more, got %d", *context)
	}
	useColor, err := wantColor(*color, stdout)
	if err != nil {
		return err
	}
	a, err := readTrace(paths[0])
	if err != nil {
		return err
	}
	b, err := readTrace(paths[1])
	if err != nil {
		return err
	}
	res := traces.Diff(a, b, traces.DiffOptions{Mask: mask})
	if *asJSON {
		err = traces.WriteJSON(stdout, res)
	} else {
		fmt.Fprintf(stdout, "a: %s\nb: %s\n", paths[0], paths[1])
		err = traces.WriteText(stdout, res, useColor, *context)
	}
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	if res.Equal {
		return nil
	}
	fd := res.FirstDivergence
	return &exitError{code: 1, err: fmt.Errorf("traces differ: first at %s line %d, %s line %d",
		paths[0], fd.IndexA+1, paths[1], fd.IndexB+1)}
}

func runTraceView(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("trace view", traceSubcommands[1].usage, stderr)
	out := fs.String("o", "", "output file (default: the trace's path with a .html extension)")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageError("view: want one trace file, got %d argument(s)", len(paths))
	}
	in := paths[0]
	events, err := readTrace(in)
	if err != nil {
		return err
	}
	dest := *out
	if dest == "" {
		dest = strings.TrimSuffix(in, filepath.Ext(in)) + ".html"
	}
	if dest == in {
		return usageError("view: output %s would overwrite the trace", dest)
	}
	f, err := os.Create(dest)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if err := traces.WriteHTML(f, events, filepath.Base(in)); err != nil {
		f.Close()
		return fmt.Errorf("view: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	fmt.Fprintln(stdout, dest)
	return nil
}

func runTraceReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("trace replay", traceSubcommands[2].usage, stderr)
	against := fs.String("against", "model", "the cluster to replay on: model (the stepped implementation comes later)")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageError("replay: want one trace file, got %d argument(s)", len(paths))
	}
	if *against != "model" {
		return usageError("replay: --against must be model, got %q", *against)
	}
	events, err := readTrace(paths[0])
	if err != nil {
		return err
	}
	rep, err := traces.Replay(events, model.New(model.Config{}))
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("replay: %s: %w", paths[0], err)}
	}
	if rep.Reproduced() {
		fmt.Fprintf(stdout, "reproduced: %d events of %s on the %s\n", rep.Steps, paths[0], *against)
		return nil
	}
	d := rep.Departure
	fmt.Fprintf(stdout, "departs at seq %d of %s on the %s (a: recorded, b: replayed)\n", d.Seq, paths[0], *against)
	fmt.Fprintf(stdout, "  recorded  %s\n  replayed  %s\n  ^ %s\n", d.Recorded.Text(), d.Got.Text(), d.Reason)
	return &exitError{code: 1, err: fmt.Errorf("replay departs at seq %d: %s", d.Seq, d.Reason)}
}

// readTrace reads a trace file; any failure is bad input (exit 2), and the
// message names the file and, for bad content, the line.
func readTrace(path string) ([]traces.Event, error) {
	events, err := traces.ReadFile(path)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	return events, nil
}

// parseInterleaved lets flags come after positional arguments, as in
// `converge trace diff a.jsonl b.jsonl --json`. A "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// wantColor decides on ANSI colour: "auto" colours only a terminal, and
// never when NO_COLOR is set to anything (https://no-color.org).
func wantColor(mode string, stdout io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		if os.Getenv("NO_COLOR") != "" {
			return false, nil
		}
		f, ok := stdout.(*os.File)
		if !ok {
			return false, nil
		}
		info, err := f.Stat()
		return err == nil && info.Mode()&os.ModeCharDevice != 0, nil
	}
	return false, usageError("diff: --color must be auto, always or never, got %q", mode)
}
