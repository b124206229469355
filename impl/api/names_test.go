package api

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"
)

// Each name matcher accepts exactly what its regular expression does, on
// strings of the characters that matter and on any strings at all.
func TestNameShapesMatchTheirExpressions(t *testing.T) {
	cases := []struct {
		format string
		match  func(string) bool
	}{
		{dns1123LabelFmt, isDNS1123LabelShape},
		{dns1123SubdomainFmt, isDNS1123SubdomainShape},
		{qualifiedNameFmt, isQualifiedNameShape},
		{labelValueFmt, func(s string) bool { return s == "" || isQualifiedNameShape(s) }},
	}
	nameish := rapid.StringOf(rapid.SampledFrom([]rune("az09AZ-_./é")))
	for _, c := range cases {
		re := regexp.MustCompile("^" + c.format + "$")
		t.Run(c.format, rapid.MakeCheck(func(t *rapid.T) {
			s := rapid.OneOf(nameish, rapid.String()).Draw(t, "s")
			if got, want := c.match(s), re.MatchString(s); got != want {
				t.Fatalf("%q: matcher says %v, expression %v", s, got, want)
			}
		}))
	}
}
