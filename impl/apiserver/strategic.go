package apiserver

import (
	"fmt"
	"slices"
	"strings"
)

// Strategic merge patch without an OpenAPI schema: converge serves a
// fixed set of kinds, so the lists merged by key are known by field name
// (see mergeKeyOf); every other list is replaced, as for atomic lists.

const (
	directivePatch       = "$patch"
	directiveRetainKeys  = "$retainKeys"
	prefixSetOrder       = "$setElementOrder/"
	prefixDeletePrimList = "$deleteFromPrimitiveList/"
)

// mergeKeyOf is the patchMergeKey of the list field at path (field names
// from the root, indices left out), or "" for lists replaced whole.
func mergeKeyOf(path []string) string {
	if len(path) == 0 {
		return ""
	}
	field := path[len(path)-1]
	switch field {
	case "containers", "initContainers", "ephemeralContainers", "env", "volumes", "imagePullSecrets":
		return "name"
	case "volumeMounts":
		return "mountPath"
	case "volumeDevices":
		return "devicePath"
	case "conditions", "addresses":
		return "type"
	case "ownerReferences":
		return "uid"
	case "hostAliases":
		return "ip"
	case "topologySpreadConstraints":
		return "topologyKey"
	case "ports":
		if len(path) >= 2 && strings.HasSuffix(path[len(path)-2], "ontainers") {
			return "containerPort"
		}
		return "port"
	}
	return ""
}

// strategicMerge applies patch to target (both decoded JSON objects) and
// returns the result; nil means the object was deleted ($patch: delete).
func strategicMerge(target, patch map[string]any, path []string) (map[string]any, error) {
	if target == nil {
		target = map[string]any{}
	}
	if d, ok := patch[directivePatch]; ok {
		switch d {
		case "replace":
			return stripDirectives(patch), nil
		case "delete":
			return nil, nil
		case "merge":
		default:
			return nil, fmt.Errorf("unknown patch directive %v at %s", d, strings.Join(path, "."))
		}
	}
	for k, pv := range patch {
		switch {
		case k == directivePatch || k == directiveRetainKeys || strings.HasPrefix(k, prefixSetOrder):
			continue // $setElementOrder only orders; tolerated and ignored
		case strings.HasPrefix(k, prefixDeletePrimList):
			field := strings.TrimPrefix(k, prefixDeletePrimList)
			drop, ok := pv.([]any)
			cur, ok2 := target[field].([]any)
			if ok && ok2 {
				target[field] = slices.DeleteFunc(slices.Clone(cur), func(v any) bool {
					return slices.ContainsFunc(drop, func(d any) bool { return jsonEqual(d, v) })
				})
			}
			continue
		}
		child := append(slices.Clip(path), k)
		switch p := pv.(type) {
		case nil:
			delete(target, k)
		case map[string]any:
			tm, _ := target[k].(map[string]any)
			merged, err := strategicMerge(tm, p, child)
			if err != nil {
				return nil, err
			}
			if merged == nil {
				delete(target, k)
			} else {
				target[k] = merged
			}
		case []any:
			cur, _ := target[k].([]any)
			merged, err := mergeList(cur, p, child)
			if err != nil {
				return nil, err
			}
			target[k] = merged
		default:
			target[k] = pv
		}
	}
	if rk, ok := patch[directiveRetainKeys]; ok {
		keep, ok := rk.([]any)
		if !ok {
			return nil, fmt.Errorf("%s at %s must be a list", directiveRetainKeys, strings.Join(path, "."))
		}
		for k := range target {
			if !slices.ContainsFunc(keep, func(v any) bool { return v == k }) {
				delete(target, k)
			}
		}
	}
	return target, nil
}

// mergeList merges a patch list into cur by the field's merge key, or
// replaces it when the field has none.
func mergeList(cur, patch []any, path []string) ([]any, error) {
	key := mergeKeyOf(path)
	if key == "" {
		out := make([]any, 0, len(patch))
		for _, e := range patch {
			if m, ok := e.(map[string]any); ok {
				if m[directivePatch] == "delete" {
					continue
				}
				e = stripDirectives(m)
			}
			out = append(out, e)
		}
		return out, nil
	}
	out := slices.Clone(cur)
	for i, e := range patch {
		pm, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: expected an object with merge key %q", strings.Join(path, "."), i, key)
		}
		if pm[directivePatch] == "replace" {
			return stripList(patch), nil
		}
		kv, ok := pm[key]
		if !ok {
			return nil, fmt.Errorf("%s[%d]: does not contain declared merge key: %s", strings.Join(path, "."), i, key)
		}
		at := slices.IndexFunc(out, func(c any) bool {
			cm, ok := c.(map[string]any)
			return ok && jsonEqual(cm[key], kv)
		})
		if pm[directivePatch] == "delete" {
			if at >= 0 {
				out = slices.Delete(out, at, at+1)
			}
			continue
		}
		if at < 0 {
			merged, err := strategicMerge(nil, pm, path)
			if err != nil {
				return nil, err
			}
			out = append(out, merged)
			continue
		}
		cm, _ := out[at].(map[string]any)
		merged, err := strategicMerge(cm, pm, path)
		if err != nil {
			return nil, err
		}
		out[at] = merged
	}
	return out, nil
}

// stripDirectives drops $-directives from a patch object used verbatim.
func stripDirectives(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if strings.HasPrefix(k, "$") {
			continue
		}
		if vm, ok := v.(map[string]any); ok {
			v = stripDirectives(vm)
		} else if vl, ok := v.([]any); ok {
			v = stripList(vl)
		}
		out[k] = v
	}
	return out
}

func stripList(l []any) []any {
	out := make([]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			if m[directivePatch] == "delete" {
				continue
			}
			e = stripDirectives(m)
		}
		out = append(out, e)
	}
	return out
}
