package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckModelCampaignPasses(t *testing.T) {
	code, out, errOut := runTraceCLI("check", "--checks", "20", "--steps", "30", "--seed", "7")
	if code != 0 || !strings.Contains(out, "ok: 20 checks passed") || !strings.Contains(out, "seed 7") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestCheckLockstepCampaignPasses(t *testing.T) {
	code, out, errOut := runTraceCLI("check", "--target", "lockstep", "--checks", "3", "--steps", "20", "--seed", "1")
	if code != 0 || !strings.Contains(out, "ok: 3 checks passed") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// A mutant is caught, its shrunk script saved, and --replay reproduces the
// same failure on the model and in lockstep.
func TestCheckMutantFailsAndItsScriptReplays(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rs.script")
	code, out, errOut := runTraceCLI("check", "--mutant", "replicaset-no-expectations", "--seed", "2", "--checks", "1000",
		"--shrink-time", "2s", "--out", file)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	replay := "converge check --target lockstep --mutant replicaset-no-expectations --replay " + file
	if !strings.Contains(out, replay) || !strings.Contains(out, "invariant violated") {
		t.Fatalf("no failure or replay command in:\n%s", out)
	}
	msg := out[strings.Index(out, "model: invariant violated"):]
	msg = msg[:strings.Index(msg, "\n")]
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"model", "lockstep"} {
		code, rout, rerr := runTraceCLI("check", "--target", target, "--mutant", "replicaset-no-expectations", "--replay", file)
		if code != 1 || !strings.Contains(rout, msg) {
			t.Fatalf("replay on %s: exit %d, want 1 with %q\nstdout:\n%s\nstderr:\n%s\nscript:\n%s", target, code, msg, rout, rerr, text)
		}
	}
	// The correct code passes the same script.
	if code, rout, rerr := runTraceCLI("check", "--target", "lockstep", "--replay", file); code != 0 {
		t.Fatalf("correct code on the counterexample: exit %d\n%s%s", code, rout, rerr)
	}
}

func TestCheckBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.script")
	if err := os.WriteFile(bad, []byte("fly away\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--target", "etcd"}, {"--mutant", "nope"}, {"--checks", "0"}, {"--steps", "-1"}, {"extra"},
		{"--replay", filepath.Join(t.TempDir(), "missing")}, {"--replay", bad},
	} {
		if code, out, errOut := runTraceCLI(append([]string{"check"}, args...)...); code != 2 {
			t.Errorf("check %v: exit %d, want 2\n%s%s", args, code, out, errOut)
		}
	}
}
