package api

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"pgregory.net/rapid"
)

// A fast path passes nothing apimachinery's validator refuses; the shape
// checks pass exactly what it passes. plainName passes only names every
// name rule takes.
func TestFastPathsAgreeWithApimachinery(t *testing.T) {
	runes := rapid.SampledFrom([]rune("az09AZ-_./%é"))
	str := rapid.OneOf(
		rapid.StringOf(runes),
		rapid.StringOfN(rapid.SampledFrom([]rune("a0-.")), 50, 300, -1), // near the length limits
		rapid.String(),
	)
	ok := func(msgs []string) bool { return len(msgs) == 0 }
	exact := []struct {
		name     string
		fast     func(string) bool
		upstream func(string) []string
	}{
		{"dns1123Label", func(s string) bool { return dns1123Label(s) == nil }, validation.IsDNS1123Label},
		{"dns1123Subdomain", func(s string) bool { return dns1123Subdomain(s) == nil }, validation.IsDNS1123Subdomain},
		{"validPercent", func(s string) bool { return validPercent(s) == nil }, validation.IsValidPercent},
		{"isLabelKeyShape", isLabelKeyShape, content.IsLabelKey},
		{"isLabelValueShape", isLabelValueShape, content.IsLabelValue},
	}
	for _, c := range exact {
		t.Run(c.name, rapid.MakeCheck(func(t *rapid.T) {
			s := str.Draw(t, "s")
			if got, want := c.fast(s), ok(c.upstream(s)); got != want {
				t.Fatalf("%q: fast path %v, apimachinery %v", s, got, want)
			}
		}))
	}
	rules := []apivalidation.ValidateNameFunc{apivalidation.NameIsDNSSubdomain, apivalidation.NameIsDNSLabel, apivalidation.NameIsDNS1035Label}
	t.Run("plainName", rapid.MakeCheck(func(t *rapid.T) {
		s := str.Draw(t, "s")
		for i, rule := range rules {
			if plainName(s) && !ok(rule(s, false)) {
				t.Fatalf("%q: plain, but rule %d refuses it: %v", s, i, rule(s, false))
			}
			if plainGenerateName(s) && !ok(rule(s, true)) {
				t.Fatalf("%q: plain generateName, but rule %d refuses it: %v", s, i, rule(s, true))
			}
		}
	}))
	// Not vacuous: the usual names take the fast path.
	for _, s := range []string{"myapp", "web-0", "myapp-7d9f-"} {
		if !plainName(s) && !plainGenerateName(s) {
			t.Errorf("%q misses the fast path", s)
		}
	}
}
