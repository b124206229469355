package crdgen

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"
)

// TestRejectionNamesTheRule: when draws keep failing a CEL rule, the
// property fails with the rule's text and message, where it sits, and
// what to do, instead of looping or skipping.
func TestRejectionNamesTheRule(t *testing.T) {
	setFlags(t, "rapid.nofailfile", "true")
	for _, tc := range []struct {
		name string
		file int
		opts []Option
		want []string
	}{
		{
			name: "spec rule",
			file: 0,
			opts: []Option{
				WithField("spec.replicas", rapid.IntRange(6, 10).AsAny()),
				WithField("spec.size", rapid.SampledFrom([]any{"small", "medium"})),
			},
			want: []string{
				"25 drawn objects in a row failed validation; in 25 of them: spec: Invalid value",
				"x-kubernetes-validations rule at spec: self.replicas <= 5 || self.size == 'large'",
				`(message "more than 5 replicas need size large")`,
				"crdgen.WithField",
			},
		},
		{
			name: "rule on list items",
			file: 2,
			opts: []Option{
				WithField("spec.ports", rapid.Just[any]([]map[string]any{{"name": "ssh", "port": 22}})),
				WithRetries(5),
			},
			want: []string{
				"5 drawn objects in a row failed validation",
				"x-kubernetes-validations rule at spec.ports[0]: self.port != 22",
				`(message "port 22 is reserved")`,
			},
		},
		{
			name: "not a rule",
			file: 0,
			opts: []Option{WithField("spec.replicas", rapid.Just[any](11)), WithRetries(3)},
			want: []string{
				"spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
				"constrain spec.replicas with crdgen.WithField",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := crdFiles[tc.file]
			g := newGen(t, loadCRD(t, f.path, f.version), tc.opts...)
			tb := &recorder{name: t.Name()}
			rapid.Check(tb, func(rt *rapid.T) { g.Object("default", "w").Draw(rt, "object") })
			out := tb.log.String()
			if !tb.failed {
				t.Fatalf("the property passed:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the failure does not say %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestCutStep(t *testing.T) {
	for p, want := range map[string][2]string{
		"spec":              {"spec", ""},
		"spec.tags[1].name": {"spec", ".tags[1].name"},
		"[1].name":          {"[1]", ".name"},
		"labels[a.b]":       {"labels", "[a.b]"},
	} {
		step, rest, _ := cutStep(p)
		if step != want[0] || rest != want[1] {
			t.Errorf("cutStep(%q) = %q, %q", p, step, rest)
		}
	}
	if _, _, ok := ruleFor(nil, field.Invalid(field.NewPath("spec"), 1, "x")); ok {
		t.Error("a rule found without a schema")
	}
}
