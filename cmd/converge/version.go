package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register(command{name: "version", summary: "print converge's module version and the commit it was built from", run: runVersion,
		examples: []string{"converge version"}})
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("no build information in this binary")
	}
	fmt.Fprintln(stdout, versionLine(info))
	return nil
}

// versionLine is "converge VERSION (commit REV[, modified])": the main
// module's version as go install records it ("(devel)" in a checkout's
// build) and the VCS stamp go build adds in a checkout. A build without
// the stamp (go install from the module proxy, -buildvcs=false) names
// the version alone.
func versionLine(info *debug.BuildInfo) string {
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	rev := settings["vcs.revision"]
	if rev == "" {
		return "converge " + version
	}
	if settings["vcs.modified"] == "true" {
		rev += ", modified"
	}
	return "converge " + version + " (commit " + rev + ")"
}
