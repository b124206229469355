package api

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ErrInvalidSelector reports a label selector string that does not parse.
var ErrInvalidSelector = errors.New("api: invalid label selector")

// LabelSelectorOperator relates a key to a set of values.
type LabelSelectorOperator string

const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// LabelSelector selects objects by labels. All of matchLabels and all of
// matchExpressions must hold.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string                `json:"key"`
	Operator LabelSelectorOperator `json:"operator"`
	Values   []string              `json:"values,omitempty"`
}

// IsEmpty reports a selector with no requirements, which matches everything.
func (s *LabelSelector) IsEmpty() bool {
	return s != nil && len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// Matches follows Kubernetes: a nil selector matches nothing, an empty one
// matches everything, and a selector with an unknown operator matches
// nothing (validation rejects such selectors before they are stored).
func (s *LabelSelector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		if !r.matches(labels) {
			return false
		}
	}
	return true
}

func (r LabelSelectorRequirement) matches(labels map[string]string) bool {
	v, has := labels[r.Key]
	switch r.Operator {
	case LabelSelectorOpIn:
		return has && slices.Contains(r.Values, v)
	case LabelSelectorOpNotIn:
		return !has || !slices.Contains(r.Values, v)
	case LabelSelectorOpExists:
		return has
	case LabelSelectorOpDoesNotExist:
		return !has
	}
	return false
}

// String renders the selector in the query syntax kubectl uses for
// ?labelSelector= and Scale's status.selector, sorted by key so it is stable:
// "app=myapp,tier in (a,b),!legacy".
func (s *LabelSelector) String() string {
	if s == nil {
		return ""
	}
	type term struct{ key, text string }
	terms := make([]term, 0, len(s.MatchLabels)+len(s.MatchExpressions))
	for k, v := range s.MatchLabels {
		terms = append(terms, term{k, k + "=" + v})
	}
	for _, r := range s.MatchExpressions {
		vals := slices.Clone(r.Values)
		sort.Strings(vals)
		var text string
		switch r.Operator {
		case LabelSelectorOpIn:
			text = r.Key + " in (" + strings.Join(vals, ",") + ")"
		case LabelSelectorOpNotIn:
			text = r.Key + " notin (" + strings.Join(vals, ",") + ")"
		case LabelSelectorOpExists:
			text = r.Key
		case LabelSelectorOpDoesNotExist:
			text = "!" + r.Key
		default:
			text = r.Key + " " + string(r.Operator) + " (" + strings.Join(vals, ",") + ")"
		}
		terms = append(terms, term{r.Key, text})
	}
	sort.SliceStable(terms, func(i, j int) bool {
		if terms[i].key != terms[j].key {
			return terms[i].key < terms[j].key
		}
		return terms[i].text < terms[j].text
	})
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t.text
	}
	return strings.Join(out, ",")
}

// SelectorFromSet is the selector requiring exactly these labels.
func SelectorFromSet(set map[string]string) *LabelSelector {
	m := make(map[string]string, len(set))
	for k, v := range set {
		m[k] = v
	}
	return &LabelSelector{MatchLabels: m}
}

// ParseLabelSelector parses the query syntax: comma-separated terms of the
// forms k=v, k==v, k!=v, "k in (a,b)", "k notin (a,b)", k and !k. The empty
// string is the empty selector, which matches everything.
func ParseLabelSelector(text string) (*LabelSelector, error) {
	sel := &LabelSelector{}
	for _, raw := range splitSelectorTerms(text) {
		t := strings.TrimSpace(raw)
		if t == "" {
			if strings.TrimSpace(text) == "" {
				continue
			}
			return nil, fmt.Errorf("%w: empty term in %q", ErrInvalidSelector, text)
		}
		if err := addSelectorTerm(sel, t); err != nil {
			return nil, err
		}
	}
	return sel, nil
}

// splitSelectorTerms splits on commas outside parentheses.
func splitSelectorTerms(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func addSelectorTerm(sel *LabelSelector, t string) error {
	bad := func(why string) error { return fmt.Errorf("%w: %q: %s", ErrInvalidSelector, t, why) }
	checkKey := func(k string) error {
		if msgs := isQualifiedName(k); len(msgs) > 0 {
			return bad("key " + msgs[0])
		}
		return nil
	}
	checkValue := func(v string) error {
		if msgs := isValidLabelValue(v); len(msgs) > 0 {
			return bad("value " + msgs[0])
		}
		return nil
	}
	if strings.HasPrefix(t, "!") {
		k := strings.TrimSpace(t[1:])
		if err := checkKey(k); err != nil {
			return err
		}
		sel.MatchExpressions = append(sel.MatchExpressions, LabelSelectorRequirement{Key: k, Operator: LabelSelectorOpDoesNotExist})
		return nil
	}
	if i := strings.Index(t, "!="); i >= 0 {
		k, v := strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+2:])
		if err := checkKey(k); err != nil {
			return err
		}
		if err := checkValue(v); err != nil {
			return err
		}
		sel.MatchExpressions = append(sel.MatchExpressions, LabelSelectorRequirement{Key: k, Operator: LabelSelectorOpNotIn, Values: []string{v}})
		return nil
	}
	if i := strings.Index(t, "="); i >= 0 {
		k, v := strings.TrimSpace(t[:i]), strings.TrimSpace(strings.TrimPrefix(t[i+1:], "="))
		if err := checkKey(k); err != nil {
			return err
		}
		if err := checkValue(v); err != nil {
			return err
		}
		if _, dup := sel.MatchLabels[k]; dup {
			// A repeated key must still constrain; keep it as an expression.
			sel.MatchExpressions = append(sel.MatchExpressions, LabelSelectorRequirement{Key: k, Operator: LabelSelectorOpIn, Values: []string{v}})
			return nil
		}
		if sel.MatchLabels == nil {
			sel.MatchLabels = map[string]string{}
		}
		sel.MatchLabels[k] = v
		return nil
	}
	if open := strings.Index(t, "("); open >= 0 {
		if !strings.HasSuffix(t, ")") {
			return bad("missing ')'")
		}
		head := strings.Fields(t[:open])
		if len(head) != 2 {
			return bad("expected 'key in (values)' or 'key notin (values)'")
		}
		var op LabelSelectorOperator
		switch head[1] {
		case "in":
			op = LabelSelectorOpIn
		case "notin":
			op = LabelSelectorOpNotIn
		default:
			return bad("unknown operator " + head[1])
		}
		if err := checkKey(head[0]); err != nil {
			return err
		}
		var vals []string
		for _, v := range strings.Split(t[open+1:len(t)-1], ",") {
			v = strings.TrimSpace(v)
			if err := checkValue(v); err != nil {
				return err
			}
			vals = append(vals, v)
		}
		sel.MatchExpressions = append(sel.MatchExpressions, LabelSelectorRequirement{Key: head[0], Operator: op, Values: vals})
		return nil
	}
	if strings.ContainsAny(t, " ()<>") {
		return bad("unsupported syntax")
	}
	if err := checkKey(t); err != nil {
		return err
	}
	sel.MatchExpressions = append(sel.MatchExpressions, LabelSelectorRequirement{Key: t, Operator: LabelSelectorOpExists})
	return nil
}
