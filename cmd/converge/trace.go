package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func init() {
	register(command{name: "trace", summary: "diff or replay recorded traces, or view one as an HTML timeline", run: runTrace,
		examples: []string{
			"converge trace diff golden.trace run.trace --mask time",
			"converge trace view run.trace -o run.html",
			"converge trace replay run.trace --against both",
			"converge trace record --all --dir traces/",
		}})
}

// traceSubcommands are listed by `converge trace --help`, in this order.
var traceSubcommands = []struct{ name, usage, summary string }{
	{"diff", "A B [--mask FIELD]... [--format text|json|github] [--json] [--context N] [--color auto|always|never]",
		"align two traces and show the first divergence (exit 0 equal, 1 differ, 2 bad input)"},
	{"view", "A [-o A.html]", "write a self-contained HTML swim-lane timeline of a trace"},
	{"replay", "A [--against impl|model|both] [--etcd-endpoints URL,...]",
		"re-run a trace's actions on the model and/or the implementation over etcd and name the first event that departs (exit 0 reproduced, 1 departs, 2 bad input)"},
	{"record", "NAME... | --all [--dir DIR] [--mutant NAME]",
		"write golden scenarios' traces as this code records them on the model, to diff against the committed goldens"},
}

func runTrace(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		traceUsage(stderr)
		return usageError("missing subcommand (diff, view, replay or record)")
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
	case "record":
		return runTraceRecord(args[1:], stdout, stderr)
	}
	return usageError("unknown subcommand %q (see converge trace --help)", args[0])
}

func traceUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: converge trace <subcommand> [flags]\n\nSubcommands:")
	for _, s := range traceSubcommands {
		fmt.Fprintf(w, "  %-6s %s\n         %s\n", s.name, s.usage, s.summary)
	}
	fmt.Fprintf(w, "\nMaskable fields: %s\n", strings.Join(traces.MaskFields(), ", "))
	printExamples(w, commands["trace"].examples, "trace")
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
	asJSON := fs.Bool("json", false, "print the whole result as JSON (same as --format json)")
	format := fs.String("format", "text", "text; json (the whole result, for any CI); github (GitHub Actions ::error/::notice workflow commands at A's line of the first divergence)")
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
	switch *format {
	case "text", "json", "github":
	default:
		return usageError("diff: --format must be text, json or github, not %q", *format)
	}
	if *asJSON {
		*format = "json"
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
	switch *format {
	case "json":
		err = traces.WriteJSON(stdout, res)
	case "github":
		err = traces.WriteGitHub(stdout, res, paths[0], paths[1])
	default:
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
	against := fs.String("against", "both", "the cluster to replay on: model, impl (the stepped implementation over etcd) or both")
	endpoints := fs.String("etcd-endpoints", "", "comma-separated client URLs of an external etcd for impl (default: an embedded etcd in a temporary directory)")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageError("replay: want one trace file, got %d argument(s)", len(paths))
	}
	var targets []string
	switch *against {
	case "model", "impl":
		targets = []string{*against}
	case "both":
		targets = []string{"model", "impl"}
	default:
		return usageError("replay: --against must be model, impl or both, got %q", *against)
	}
	eps, err := parseEndpoints(*endpoints)
	if err != nil {
		return err
	}
	if len(eps) > 0 && *against == "model" {
		return usageError("replay: --etcd-endpoints needs --against impl or both")
	}
	events, err := readTrace(paths[0])
	if err != nil {
		return err
	}
	// Check every script first, so a bad trace starts no etcd.
	if err := checkReplayable(events); err != nil {
		return &exitError{code: 2, err: fmt.Errorf("replay: %s: %w", paths[0], err)}
	}
	// Reach etcd before replaying anything, so a bad --etcd-endpoints
	// prints nothing but its error.
	var impl *implCluster
	if *against != "model" {
		if impl, err = openImpl(eps); err != nil {
			return err
		}
		defer impl.close()
	}
	var departed []string
	for _, target := range targets {
		var rep traces.ReplayReport
		if target == "model" {
			rep, err = traces.Replay(events, model.New(model.Config{}))
		} else {
			rep, err = impl.replay(events)
		}
		if err != nil {
			return fmt.Errorf("replay on the %s: %w", target, err)
		}
		if rep.Reproduced() {
			fmt.Fprintf(stdout, "reproduced: %d events of %s on the %s\n", rep.Steps, paths[0], target)
			continue
		}
		d := rep.Departure
		fmt.Fprintf(stdout, "departs at seq %d of %s on the %s (a: recorded, b: replayed)\n", d.Seq, paths[0], target)
		fmt.Fprintf(stdout, "  recorded  %s\n  replayed  %s\n  ^ %s\n", d.Recorded.Text(), d.Got.Text(), d.Reason)
		departed = append(departed, fmt.Sprintf("on the %s at seq %d: %s", target, d.Seq, d.Reason))
	}
	if len(departed) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("replay departs %s", strings.Join(departed, "; "))}
	}
	return nil
}

// checkReplayable fails, as traces.Replay would, on an event without a
// script or with one that does not parse.
func checkReplayable(events []traces.TraceEvent) error {
	for _, e := range events {
		if e.Script == "" {
			return fmt.Errorf("%w: seq %d (%s %s) has no script", traces.ErrNotReplayable, e.Seq, e.Actor, e.Action)
		}
		if _, err := model.ParseAction(e.Script); err != nil {
			return fmt.Errorf("%w: seq %d: %w", traces.ErrNotReplayable, e.Seq, err)
		}
	}
	return nil
}

// parseEndpoints splits --etcd-endpoints; every entry must be a URL with a
// host, or a bare host:port.
func parseEndpoints(flagValue string) ([]string, error) {
	if strings.TrimSpace(flagValue) == "" {
		return nil, nil
	}
	var eps []string
	for _, ep := range strings.Split(flagValue, ",") {
		ep = strings.TrimSpace(ep)
		host := ep
		if scheme, rest, ok := strings.Cut(ep, "://"); ok {
			if scheme != "http" && scheme != "https" {
				return nil, usageError("replay: --etcd-endpoints: %q: scheme must be http or https", ep)
			}
			host = rest
		}
		if _, port, err := net.SplitHostPort(strings.TrimSuffix(host, "/")); err != nil || port == "" {
			return nil, usageError("replay: --etcd-endpoints: %q is not host:port or a URL with one", ep)
		}
		eps = append(eps, ep)
	}
	return eps, nil
}

// implCluster is an etcd for replaying on the stepped implementation: an
// external one, or an embedded one in a temporary directory.
type implCluster struct {
	client   *clientv3.Client
	external bool
	cleanup  []func() // run in reverse order by close
}

// openImpl dials endpoints, or starts an embedded etcd when there are none.
// Endpoints that do not answer are bad input (exit 2).
func openImpl(endpoints []string) (*implCluster, error) {
	if len(endpoints) > 0 {
		c, err := etcd.Dial(endpoints)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("replay: %w", err)}
		}
		return &implCluster{client: c, external: true, cleanup: []func(){func() { c.Close() }}}, nil
	}
	c, stop, err := tempEtcd("replay")
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &implCluster{client: c, cleanup: []func(){stop}}, nil
}

func (ic *implCluster) close() {
	for i := len(ic.cleanup) - 1; i >= 0; i-- {
		ic.cleanup[i]()
	}
	ic.cleanup = nil
}

// replay replays events on a fresh stepped implementation under a key
// prefix of its own, deleted afterwards from an external etcd.
func (ic *implCluster) replay(events []traces.TraceEvent) (traces.ReplayReport, error) {
	prefix := fmt.Sprintf("/converge-replay/%d-%d", os.Getpid(), time.Now().UnixNano())
	if ic.external {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), etcd.DefaultDialTimeout)
			defer cancel()
			ic.client.Delete(ctx, prefix+"/", clientv3.WithPrefix()) // best effort: the prefix is unique anyway
		}()
	}
	s, err := cluster.NewStepped(cluster.SteppedConfig{Store: store.New(ic.client, prefix)})
	if err != nil {
		return traces.ReplayReport{}, err
	}
	defer s.Close()
	rep, err := traces.Replay(events, s)
	if err != nil {
		return rep, err
	}
	if errs := s.Errors(); len(errs) > 0 {
		return rep, fmt.Errorf("%d internal error(s), the first: %w", len(errs), errs[0])
	}
	return rep, nil
}

// readTrace reads a trace file; any failure is bad input (exit 2), and the
// message names the file and, for bad content, the line.
func readTrace(path string) ([]traces.TraceEvent, error) {
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
