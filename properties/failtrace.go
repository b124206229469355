package properties

import (
	"os"
	"path/filepath"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

// FailureTraceEnv names the file a failing property saves its
// counterexample to, as a trace; the default is converge-failure.jsonl in
// the temporary directory. Rapid re-runs the shrunk case last, so the file
// ends up holding the shrunk counterexample.
const FailureTraceEnv = "CONVERGE_FAILURE_TRACE"

// saveFailure records the script on the model as a trace, so a failure can
// be shared and re-run with `converge trace replay FILE --against impl`.
// It returns the path, or "" if the trace could not be written.
func saveFailure(script Script, cfg model.Config) string {
	return saveFailureTo(defaultFailureTrace(), script, cfg)
}

// defaultFailureTrace is $CONVERGE_FAILURE_TRACE or the temporary file.
func defaultFailureTrace() string {
	if path := os.Getenv(FailureTraceEnv); path != "" {
		return path
	}
	return filepath.Join(os.TempDir(), "converge-failure.jsonl")
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
