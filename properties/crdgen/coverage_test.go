package crdgen

import (
	"slices"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// coverage records, per schema path, which values were drawn and whether
// an optional field was seen present and absent.
type coverage struct {
	present, absent map[string]int
	values          map[string]map[string]bool
}

func newCoverage() *coverage {
	return &coverage{present: map[string]int{}, absent: map[string]int{}, values: map[string]map[string]bool{}}
}

func (c *coverage) walk(s *structuralschema.Structural, path string, v any) {
	if c.values[path] == nil {
		c.values[path] = map[string]bool{}
	}
	c.values[path][jsonKey(v)] = true
	if s == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for name, child := range s.Properties {
			p := join(path, name)
			if e, ok := x[name]; ok {
				c.present[p]++
				c.walk(&child, p, e)
			} else {
				c.absent[p]++
			}
		}
		if s.AdditionalProperties != nil {
			for _, e := range x {
				c.walk(s.AdditionalProperties.Structural, path+".*", e)
			}
		}
	case []any:
		for _, e := range x {
			c.walk(s.Items, path+"[*]", e)
		}
	}
}

// TestCoverage: over many draws, every enum value and every integer
// bound is drawn, and every optional field is drawn both present and
// absent, except below the depth bound, where it is always absent.
func TestCoverage(t *testing.T) {
	const draws = 1000
	want := map[string]map[string][]string{
		"example-widget": {
			"spec.size":     {`"small"`, `"medium"`, `"large"`},
			"spec.replicas": {"0", "10"},
		},
		"impl-widget": {
			"spec.size":     {`"small"`, `"medium"`, `"large"`},
			"spec.replicas": {"0", "10"},
			"spec.tags":     {"[]"},
		},
		"gadget": {
			"spec.mode":              {`"Fast"`, `"Safe"`, `"Off"`},
			"spec.level":             {"1", "2", "3"},
			"spec.minReplicas":       {"1", "5"},
			"spec.maxReplicas":       {"1", "5"},
			"spec.step":              {"5", "100"},       // exclusive minimum 0, multipleOf 5
			"spec.weight":            {"-1.5", "1.5"},    // multipleOf 0.5: integers are refused upstream
			"spec.ports[*].port":     {"1", "65535"},     // int32 format within bounds
			"spec.ports[*].protocol": {`"TCP"`, `"UDP"`}, // enum with a default
			"spec.zones":             {`["a"]`, `["c"]`}, // minItems 1
			"spec.zones[*]":          {`"a"`, `"b"`, `"c"`},
			"spec.matrix[*][*]":      {"0", "3"},
			"spec.note":              {"null"}, // nullable
			"spec.labels":            {"{}"},
			"spec.nested.inner.leaf": {"{}"},
			"spec.paused":            {"false", "true"},
		},
	}
	for _, f := range crdFiles {
		t.Run(f.name, func(t *testing.T) {
			v := loadCRD(t, f.path, f.version)
			g := newGen(t, v)
			c := newCoverage()
			gen := g.Object("default", "w")
			for seed := range draws {
				c.walk(v.Schema, "", gen.Example(seed))
			}
			for path, vals := range want[f.name] {
				for _, val := range vals {
					if !c.values[path][val] {
						t.Errorf("%s: %s never drawn", path, val)
					}
				}
			}
			checkSchemaCoverage(t, c, v.Schema, "", 0, g.o.maxDepth)
		})
	}
}

// checkSchemaCoverage walks the schema: enums fully drawn, optional
// fields present and absent above the depth bound, absent below it.
func checkSchemaCoverage(t *testing.T, c *coverage, s *structuralschema.Structural, path string, depth, maxDepth int) {
	t.Helper()
	if s == nil || c.values[path] == nil {
		return
	}
	if vv := s.ValueValidation; vv != nil {
		for _, e := range vv.Enum {
			if !c.values[path][jsonKey(normalize(e.Object))] {
				t.Errorf("%s: enum value %v never drawn", path, e.Object)
			}
		}
	}
	var required []string
	if s.ValueValidation != nil {
		required = s.ValueValidation.Required
	}
	for name, child := range s.Properties {
		p := join(path, name)
		if path == "" && slices.Contains(rootOwned, name) {
			continue
		}
		optional := !(path == "" && name == "spec") && (!slices.Contains(required, name) || child.Default.Object != nil)
		switch {
		case optional && depth >= maxDepth && c.present[p] > 0:
			t.Errorf("%s: drawn below the depth bound (%d)", p, maxDepth)
		case optional && depth < maxDepth && (c.present[p] == 0 || c.absent[p] == 0):
			t.Errorf("%s: optional, drawn present %d and absent %d times", p, c.present[p], c.absent[p])
		case !optional && c.absent[p] > 0:
			t.Errorf("%s: required, drawn absent %d times", p, c.absent[p])
		}
		checkSchemaCoverage(t, c, &child, p, depth+1, maxDepth)
	}
	if s.Items != nil {
		checkSchemaCoverage(t, c, s.Items, path+"[*]", depth+1, maxDepth)
	}
}
