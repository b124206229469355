package properties

import (
	"fmt"
	"strings"
)

// Report is a rapid.TB that keeps rapid's report instead of failing a
// test, so a test or a campaign can look at a failure: it is how a test
// asserts that a property fails (a mutant is caught).
type Report struct {
	name   string
	logs   []string
	errs   []string
	failed bool
}

// NewReport starts an empty report for a check named name.
func NewReport(name string) *Report { return &Report{name: name} }

func (r *Report) Helper()                   {}
func (r *Report) Name() string              { return r.name }
func (r *Report) Logf(f string, a ...any)   { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }
func (r *Report) Log(a ...any)              { r.logs = append(r.logs, fmt.Sprint(a...)) }
func (r *Report) Skipf(f string, a ...any)  { r.Logf(f, a...) }
func (r *Report) Skip(a ...any)             { r.Log(a...) }
func (r *Report) SkipNow()                  {}
func (r *Report) Errorf(f string, a ...any) { r.Error(fmt.Sprintf(f, a...)) }
func (r *Report) Error(a ...any) {
	r.failed = true
	msg := fmt.Sprint(a...)
	r.errs = append(r.errs, msg)
	r.logs = append(r.logs, msg)
}
func (r *Report) Fatalf(f string, a ...any) { r.Errorf(f, a...) }
func (r *Report) Fatal(a ...any)            { r.Error(a...) }
func (r *Report) FailNow()                  { r.failed = true }
func (r *Report) Fail()                     { r.failed = true }
func (r *Report) Failed() bool              { return r.failed }

// Text is everything logged, in order.
func (r *Report) Text() string { return strings.Join(r.logs, "\n") }
