package properties

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

// FailureTraceEnv names the file a failing property saves its
// counterexample to, as a trace; the default is
// converge-failure-<test>-<seed>.jsonl in the temporary directory (see
// failureTracePath). Rapid re-runs the shrunk case last, so the file ends
// up holding the shrunk counterexample.
const FailureTraceEnv = "CONVERGE_FAILURE_TRACE"

// saveFailure records the script on the model as a trace, so a failure can
// be shared and re-run with `converge trace replay FILE --against impl`;
// what names the property that failed ("model", "lockstep"). It returns
// the path, or "" if the trace could not be written.
func saveFailure(what string, script Script, cfg model.Config) string {
	return saveFailureTo(failureTracePath(what, uint64(rapidFlag("rapid.seed", 0))), script, cfg)
}

// failureTracePath is $CONVERGE_FAILURE_TRACE, else a file of the
// temporary directory named after the test (or property) and the seed, so
// that tests and processes running side by side do not overwrite each
// other's trace. Seed 0 (rapid picks its seed and does not tell it) names
// the process instead: the path must stay the same across rapid's replays
// of one failure, which compare the failure's messages, and the path is
// in them.
func failureTracePath(test string, seed uint64) string {
	if path := os.Getenv(FailureTraceEnv); path != "" {
		return path
	}
	run := fmt.Sprintf("seed%d", seed)
	if seed == 0 {
		run = fmt.Sprintf("pid%d", os.Getpid())
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("converge-failure-%s-%s.jsonl", fileSafe(test), run))
}

// fileSafe is name with every byte that is not a letter, a digit, '.', '-'
// or '_' replaced by '_' (a subtest's '/', a space).
func fileSafe(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
}

// saveFailureTo is saveFailure to a chosen path (a campaign's own).
func saveFailureTo(path string, script Script, cfg model.Config) string {
	f, err := os.Create(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	rec := traces.NewRecorder(model.New(cfg), traces.NewWriter(f))
	for _, a := range script {
		rec.Step(a)
	}
	if rec.Err() != nil {
		return ""
	}
	return path
}
