package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
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
		assert.Equal(t, tc.web, SelectorMatches(tc.sel, web), tc.name+" / web")
		assert.Equal(t, tc.db, SelectorMatches(tc.sel, db), tc.name+" / db")
		assert.Equal(t, tc.emptyToo, SelectorMatches(tc.sel, nil), tc.name+" / no labels")
	}
}

// SelectorString is what Kubernetes puts in a Scale's status.selector:
// sorted by key, values sorted, in the syntax labels.Parse reads back.
func TestSelectorString(t *testing.T) {
	sel := &LabelSelector{
		MatchLabels: map[string]string{"app": "web", "env": "prod"},
		MatchExpressions: []LabelSelectorRequirement{
			{Key: "tier", Operator: LabelSelectorOpIn, Values: []string{"front", "back"}},
			{Key: "legacy", Operator: LabelSelectorOpDoesNotExist},
			{Key: "canary", Operator: LabelSelectorOpExists},
			{Key: "zone", Operator: LabelSelectorOpNotIn, Values: []string{"b"}},
		},
	}
	s := SelectorString(sel)
	assert.Equal(t, "app=web,canary,env=prod,!legacy,tier in (back,front),zone notin (b)", s)
	back, err := labels.Parse(s)
	require.NoError(t, err)
	for _, l := range []map[string]string{
		{"app": "web", "env": "prod", "tier": "front", "canary": ""},
		{"app": "web", "env": "prod", "tier": "front", "canary": "", "zone": "b"},
		{"app": "web", "env": "prod", "tier": "side", "canary": ""},
	} {
		assert.Equal(t, SelectorMatches(sel, l), back.Matches(labels.Set(l)), "%v", l)
	}
	assert.Equal(t, "", SelectorString(nil))
	assert.Equal(t, "", SelectorString(&LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}))
}
