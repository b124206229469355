package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLabelSelectorMatches(t *testing.T) {
	web := map[string]string{"app": "web", "tier": "front"}
	db := map[string]string{"app": "db"}
	var nilSel *LabelSelector
	for _, tc := range []struct {
		name     string
		sel      *LabelSelector
		web, db  bool
		emptyToo bool
	}{
		{"nil matches nothing", nilSel, false, false, false},
		{"empty matches everything", &LabelSelector{}, true, true, true},
		{"matchLabels", &LabelSelector{MatchLabels: map[string]string{"app": "web"}}, true, false, false},
		{"In", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "app", Operator: LabelSelectorOpIn, Values: []string{"web", "api"}}}}, true, false, false},
		{"NotIn", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "app", Operator: LabelSelectorOpNotIn, Values: []string{"web"}}}}, false, true, true},
		{"Exists", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpExists}}}, true, false, false},
		{"DoesNotExist", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpDoesNotExist}}}, false, true, true},
		{"labels and expressions both apply", &LabelSelector{MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpNotIn, Values: []string{"front"}}}}, false, false, false},
		{"unknown operator matches nothing", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}, false, false, false},
	} {
		assert.Equal(t, tc.web, tc.sel.Matches(web), tc.name+" / web")
		assert.Equal(t, tc.db, tc.sel.Matches(db), tc.name+" / db")
		assert.Equal(t, tc.emptyToo, tc.sel.Matches(nil), tc.name+" / no labels")
	}
}

func TestLabelSelectorStringAndParse(t *testing.T) {
	sel := &LabelSelector{
		MatchLabels: map[string]string{"app": "web", "env": "prod"},
		MatchExpressions: []LabelSelectorRequirement{
			{Key: "tier", Operator: LabelSelectorOpIn, Values: []string{"front", "back"}},
			{Key: "legacy", Operator: LabelSelectorOpDoesNotExist},
			{Key: "canary", Operator: LabelSelectorOpExists},
			{Key: "zone", Operator: LabelSelectorOpNotIn, Values: []string{"b"}},
		},
	}
	s := sel.String()
	assert.Equal(t, "app=web,canary,env=prod,!legacy,tier in (back,front),zone notin (b)", s)
	back, err := ParseLabelSelector(s)
	require.NoError(t, err)
	assert.Equal(t, s, back.String(), "String and Parse round-trip")
	for _, labels := range []map[string]string{
		{"app": "web", "env": "prod", "tier": "front", "canary": ""},
		{"app": "web", "env": "prod", "tier": "front", "canary": "", "zone": "b"},
		{"app": "web", "env": "prod", "tier": "side", "canary": ""},
	} {
		assert.Equal(t, sel.Matches(labels), back.Matches(labels), "%v", labels)
	}
	assert.Equal(t, "app=myapp", SelectorFromSet(map[string]string{"app": "myapp"}).String())
	var nilSel *LabelSelector
	assert.Equal(t, "", nilSel.String())
}

func TestParseLabelSelector(t *testing.T) {
	for in, want := range map[string]*LabelSelector{
		"":           {},
		"app=web":    {MatchLabels: map[string]string{"app": "web"}},
		"app==web":   {MatchLabels: map[string]string{"app": "web"}},
		" app = web": {MatchLabels: map[string]string{"app": "web"}},
		"app!=web":   {MatchExpressions: []LabelSelectorRequirement{{Key: "app", Operator: LabelSelectorOpNotIn, Values: []string{"web"}}}},
		"example.com/role in (a, b)": {MatchExpressions: []LabelSelectorRequirement{
			{Key: "example.com/role", Operator: LabelSelectorOpIn, Values: []string{"a", "b"}}}},
		"x,!y": {MatchExpressions: []LabelSelectorRequirement{
			{Key: "x", Operator: LabelSelectorOpExists}, {Key: "y", Operator: LabelSelectorOpDoesNotExist}}},
		"a=1,a=2": {MatchLabels: map[string]string{"a": "1"},
			MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpIn, Values: []string{"2"}}}},
	} {
		got, err := ParseLabelSelector(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	a12, _ := ParseLabelSelector("a=1,a=2")
	assert.False(t, a12.Matches(map[string]string{"a": "1"}), "a repeated key still constrains")

	for _, in := range []string{"app=", "=web", "a in (x", "a like (x)", "a,,b", "bad key=x", "a=has space", "a>1", "-a"} {
		_, err := ParseLabelSelector(in)
		if in == "app=" {
			// An empty value is a valid label value, as in Kubernetes.
			assert.NoError(t, err)
			continue
		}
		assert.True(t, errors.Is(err, ErrInvalidSelector), "%q: %v", in, err)
	}
}
