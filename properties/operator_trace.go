package properties

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/traces"
)

// stepLine is one step as the failure prints it.
func stepLine(e traces.TraceEvent) string {
	if e.Script != "" {
		return fmt.Sprintf("%-9s %s", "cluster", e.Script)
	}
	line := fmt.Sprintf("%-9s %s", e.Actor, e.Action)
	for _, part := range []string{e.Key, e.Detail} {
		if part != "" {
			line += " " + part
		}
	}
	if len(e.Writes) > 0 {
		ws := make([]string, len(e.Writes))
		for i, w := range e.Writes {
			ws[i] = w.Verb + " " + w.Resource + "/" + w.Name
		}
		line += " -> " + strings.Join(ws, ", ")
	} else if e.Action == "reconcile" || e.Action == "continue" {
		line += " -> no write"
	}
	return line
}

// saveTrace writes the run's events where failures go (FailureTraceEnv,
// else a file named after the test and -rapid.seed), for converge trace
// view; it returns the path, or "" if it could not.
func (r *operatorRun) saveTrace() string {
	path := failureTracePath(r.t.Name(), uint64(rapidFlag("rapid.seed", 0)))
	f, err := os.Create(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	w := traces.NewWriter(f)
	for i, e := range r.events {
		if r.states[i] != nil {
			e.Digest = r.states[i].Digest()
		} else {
			e.Digest = traces.Digest([]byte(stepLine(e))) // the step failed before the state was read
		}
		if w.Write(e) != nil {
			return ""
		}
	}
	if w.Close() != nil {
		return ""
	}
	return path
}

// compactJSON is v as one line of JSON, for the steps' log.
func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// nameFields names the fields each of a step's writes changed, from the
// snapshots before and after the step, as the control plane's writes have
// them in a trace. A write is found by its resource and name; one that
// matches no object, or two (one name in two namespaces), names none.
func nameFields(writes []traces.Write, before, after *model.Snapshot) {
	for i, w := range writes {
		if w.Err != "" {
			continue
		}
		matches := map[model.Ref]bool{}
		for _, objs := range []map[model.Ref]model.Obj{before.Objects, after.Objects} {
			for r := range objs {
				if r.Name == w.Name && resourceOf(r) == w.Resource {
					matches[r] = true
				}
			}
		}
		if len(matches) != 1 {
			continue
		}
		for r := range matches {
			if f := after.ChangedFields(before.Objects[r], after.Objects[r]); len(f) > 0 {
				writes[i].Fields = f
			}
		}
	}
}

// resourceOf is the plural resource name of r's kind ("webapps" for
// webapps.webapp.example.com).
func resourceOf(r model.Ref) string {
	if r.Type == "" {
		return r.Kind.Resource()
	}
	resource, _, _ := strings.Cut(r.Type, ".")
	return resource
}
