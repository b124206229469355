// Command converge is the single CLI of the converge testbed: it runs the
// seed flow, campaigns, trace tools and the real control plane.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/converge-dev/converge/impl/gctune"
)

// command is one subcommand. Each lives in its own file and registers itself
// from init, so adding one never edits this file.
type command struct {
	name    string
	summary string
	// examples are whole command lines, shown by --help.
	examples []string
	// run gets the arguments after the subcommand name. It returns an
	// *exitError to choose the exit code; any other error exits 1.
	run func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("converge: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// exitError carries a specific exit code (for example 2 for bad input).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks bad command-line input: one line, exit 2.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func main() {
	gctune.Apply()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "converge: unknown command %q (see converge --help)\n", args[0])
		return 2
	}
	err := cmd.run(args[1:], stdout, stderr)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "converge %s: %s\n", cmd.name, oneLine(err.Error()))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "converge: a testbed for declarative reconciliation")
	fmt.Fprintln(w, "\nUsage: converge <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-14s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'converge <command> --help' for a command's flags and examples.")
}

// newFlagSet makes a flag set that reports errors instead of exiting and
// prints its usage on -h.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("converge "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: converge %s %s\n", name, usage)
		printExamples(stderr, commands[strings.Fields(name)[0]].examples, name)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// printExamples prints a command's examples; a subcommand's flag set
// (name "trace diff") shows those of its own.
func printExamples(w io.Writer, examples []string, name string) {
	var shown []string
	for _, e := range examples {
		if rest, ok := strings.CutPrefix(e, "converge "+name); ok && (rest == "" || rest[0] == ' ') {
			shown = append(shown, e)
		}
	}
	if len(shown) == 0 {
		shown = examples
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, e := range shown {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

// parseFlags parses and turns flag errors into usage errors (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError("%v", err)
	}
	return nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
