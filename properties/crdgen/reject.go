package crdgen

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rejections tallies validation errors over the draws of one Object, so
// that the failure names the error that kept recurring rather than the
// last one.
type rejections struct {
	draws int
	count map[string]int
	errs  map[string]*field.Error
	order []string
}

func (r *rejections) add(errs field.ErrorList) {
	if r.count == nil {
		r.count, r.errs = map[string]int{}, map[string]*field.Error{}
	}
	r.draws++
	seen := map[string]bool{}
	for _, e := range errs {
		k := e.Error()
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, ok := r.count[k]; !ok {
			r.order = append(r.order, k)
			r.errs[k] = e
		}
		r.count[k]++
	}
}

// top is the most frequent error, preferring errors at a field to notes
// (such as "some validation rules were not checked"), then the first seen.
func (r *rejections) top() string {
	best := ""
	for _, k := range r.order {
		if best == "" || rank(r, k) > rank(r, best) {
			best = k
		}
	}
	return best
}

func rank(r *rejections, k string) int {
	n := 2 * r.count[k]
	if f := r.errs[k].Field; f != "" && f != "<nil>" {
		n++
	}
	return n
}

// explain is the failure of an Object whose draws all failed: the
// recurring error, the CEL rule behind it when there is one, and what to
// do about it.
func (g *Generator) explain(r *rejections) string {
	var b strings.Builder
	k := r.top()
	e := r.errs[k]
	fmt.Fprintf(&b, "crdgen: %s: %d drawn objects in a row failed validation; in %d of them: %s\n", g.v.Kind, r.draws, r.count[k], k)
	if at, rule, ok := ruleFor(g.v.Schema, e); ok {
		fmt.Fprintf(&b, "it is the x-kubernetes-validations rule at %s: %s", orRoot(at), rule.Rule)
		if rule.Message != "" {
			fmt.Fprintf(&b, " (message %q)", rule.Message)
		}
		fmt.Fprintf(&b, "\nconstrain the fields that rule reads with crdgen.WithField or crdgen.WithFilter")
	} else {
		fmt.Fprintf(&b, "constrain %s with crdgen.WithField or crdgen.WithFilter", orRoot(e.Field))
	}
	fmt.Fprintf(&b, ", or allow more draws with crdgen.WithRetries")
	for _, other := range r.order {
		if other != k {
			fmt.Fprintf(&b, "\nalso (in %d): %s", r.count[other], other)
		}
	}
	return b.String()
}

func orRoot(path string) string {
	if path == "" || path == "<nil>" {
		return "the object's root"
	}
	return path
}

// ruleFor finds the CEL rule that produced e: a rule on a schema node
// along e's path (a rule's fieldPath may point below its node) whose
// message or text is in e's detail; the deepest one wins.
func ruleFor(s *structuralschema.Structural, e *field.Error) (string, apiextensionsv1.ValidationRule, bool) {
	var at string
	var found apiextensionsv1.ValidationRule
	ok := false
	match := func(node *structuralschema.Structural, path string) {
		for _, rule := range node.XValidations {
			if (rule.Message != "" && strings.Contains(e.Detail, rule.Message)) || strings.Contains(e.Detail, rule.Rule) {
				at, found, ok = path, rule, true
			}
		}
	}
	node, path := s, ""
	for node != nil {
		match(node, path)
		step, rest, _ := cutStep(strings.TrimPrefix(e.Field[len(path):], "."))
		if step == "" {
			break
		}
		switch {
		case strings.HasPrefix(step, "["):
			switch {
			case node.Items != nil:
				node = node.Items
			case node.AdditionalProperties != nil:
				node = node.AdditionalProperties.Structural
			default:
				node = nil
			}
		default:
			if child, exists := node.Properties[step]; exists {
				node = &child
			} else if node.AdditionalProperties != nil {
				node = node.AdditionalProperties.Structural
			} else {
				node = nil
			}
		}
		path = e.Field[:len(e.Field)-len(rest)]
	}
	return at, found, ok
}

// cutStep splits a field path ("spec.tags[1].name") after its first
// step: a name or a bracketed index or key.
func cutStep(p string) (step, rest string, ok bool) {
	if p == "" {
		return "", "", false
	}
	if p[0] == '[' {
		i := strings.IndexByte(p, ']')
		if i < 0 {
			return p, "", true
		}
		return p[:i+1], p[i+1:], true
	}
	i := strings.IndexAny(p, ".[")
	if i < 0 {
		return p, "", true
	}
	return p[:i], p[i:], true
}
