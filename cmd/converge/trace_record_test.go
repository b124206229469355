package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The recorded scenarios are the committed goldens byte for byte; a mutant
// departs from them and the GitHub diff annotates the golden's line.
func TestTraceRecordMatchesTheGoldensAndAMutantIsAnnotated(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runTraceCLI("trace", "record", "--all", "--dir", dir)
	require.Equal(t, 0, code, errOut)
	goldens, err := filepath.Glob("../../traces/testdata/traces/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	require.Equal(t, len(goldens), strings.Count(out, "\n"))
	for _, g := range goldens {
		want, err := os.ReadFile(g)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, filepath.Base(g)))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s differs from its golden", g)
		code, _, _ := runTraceCLI("trace", "diff", g, filepath.Join(dir, filepath.Base(g)), "--format", "github")
		require.Equal(t, 0, code)
	}

	mut := t.TempDir()
	code, _, errOut = runTraceCLI("trace", "record", "seed-deployment", "--dir", mut, "--mutant", "endpoints-lists-unready")
	require.Equal(t, 0, code, errOut)
	golden := "../../traces/testdata/traces/seed-deployment.jsonl"
	code, out, _ = runTraceCLI("trace", "diff", golden, filepath.Join(mut, "seed-deployment.jsonl"), "--format", "github")
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(out, "::error file=../../traces/testdata/traces/seed-deployment.jsonl,line="), out)
	require.Contains(t, out, "%0Afields: writes, digest") // the field-level difference, one escaped line

	for _, args := range [][]string{{"trace", "record"}, {"trace", "record", "nope"}, {"trace", "record", "--all", "scale"},
		{"trace", "record", "scale", "--mutant", "nope"}} {
		code, _, errOut := runTraceCLI(args...)
		require.Equal(t, 2, code, "%v: %s", args, errOut)
	}
}
