package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Key names one object. Namespace is "" for cluster-scoped objects.
type Key struct {
	Resource, Namespace, Name string
}

// String is the key as it appears in traces: resource/namespace/name, or
// resource/name when cluster-scoped.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Resource + "/" + k.Name
	}
	return k.Resource + "/" + k.Namespace + "/" + k.Name
}

// validateKey rejects keys whose components would make the etcd key
// ambiguous: a '/' inside a component would shift the namespace/name split.
func validateKey(k Key) error {
	if err := validateScope(k.Resource, k.Namespace); err != nil {
		return err
	}
	if IsUnion(k.Resource) {
		return fmt.Errorf("%w: %s names no object's resource", ErrInvalid, k.Resource)
	}
	if k.Name == "" {
		return fmt.Errorf("%w: %s: empty name", ErrInvalid, k)
	}
	if strings.Contains(k.Name, "/") {
		return fmt.Errorf("%w: name %q contains '/'", ErrInvalid, k.Name)
	}
	return nil
}

func validateScope(resource, namespace string) error {
	if resource == "" {
		return fmt.Errorf("%w: empty resource", ErrInvalid)
	}
	if strings.Contains(resource, "/") {
		return fmt.Errorf("%w: resource %q contains '/'", ErrInvalid, resource)
	}
	if strings.Contains(namespace, "/") {
		return fmt.Errorf("%w: namespace %q contains '/'", ErrInvalid, namespace)
	}
	if !IsUnion(resource) {
		return nil
	}
	if namespace != "" {
		return fmt.Errorf("%w: %s spans every namespace", ErrInvalid, resource)
	}
	for _, m := range strings.Split(resource[1:], "+") {
		if m == "" || IsCustom(m) || strings.HasPrefix(m, "*") {
			return fmt.Errorf("%w: union %q: bad member %q", ErrInvalid, resource, m)
		}
	}
	return nil
}

// AllCustom names every custom resource at once, as a scope to list,
// watch or fingerprint (never a key's resource): a component that
// follows custom resources needs one stream in revision order, whatever
// CRDs come and go. No Kubernetes resource name holds a '*'.
const AllCustom = "*custom"

// Union names several resources as one scope to list or watch (never a
// key's resource, nor a scope to fingerprint), in every namespace: one
// stream in revision order, as AllCustom is for custom resources, who may
// be among them. Union(AllCustom) is AllCustom.
func Union(resources ...string) string {
	ms := make([]string, 0, len(resources))
	for _, r := range resources {
		ms = append(ms, strings.TrimPrefix(r, "*"))
	}
	slices.Sort(ms)
	return "*" + strings.Join(slices.Compact(ms), "+")
}

// IsUnion: resource names a Union (AllCustom is one).
func IsUnion(resource string) bool { return strings.HasPrefix(resource, "*") }

// spansResources: a Union of more than the custom resources, whose keys
// share no prefix short of every resource's: reads of it filter what
// etcd sends by unionFilter.
func spansResources(resource string) bool { return IsUnion(resource) && resource != AllCustom }

// unionFilter says whether an etcd key under "<prefix>/registry/" holds
// an object of one of union's resources; nil keeps every key (a scope of
// one prefix).
func (s *Store) unionFilter(union string) func(etcdKey []byte) bool {
	if !spansResources(union) {
		return nil
	}
	members := map[string]bool{}
	for _, m := range strings.Split(union[1:], "+") {
		members[m] = true
	}
	base := []byte(s.prefix + "/registry/")
	return func(k []byte) bool {
		res, _, _ := bytes.Cut(bytes.TrimPrefix(k, base), []byte("/"))
		return members[string(res)] // no copy: a map index
	}
}

// unionMembers are union's resources as scopes of their own, in key
// order; "custom" stands for AllCustom.
func unionMembers(union string) []string {
	ms := strings.Split(union[1:], "+")
	for i, m := range ms {
		if m == "custom" {
			ms[i] = AllCustom
		}
	}
	return ms
}

// customPrefix holds every custom resource (a resource whose name is
// "plural.group", as no built-in's is), so that AllCustom is one prefix.
const customPrefix = "/registry/custom/"

// IsCustom says whether resource is a custom resource's full name.
func IsCustom(resource string) bool { return strings.Contains(resource, ".") }

// scopePrefix is the etcd prefix of every object of resource in namespace
// (all namespaces when ""), ending in '/' so "pods/a" never matches "pods/ab".
func (s *Store) scopePrefix(resource, namespace string) string {
	base := s.prefix + "/registry/" + resource + "/"
	switch {
	case resource == AllCustom:
		return s.prefix + customPrefix
	case IsUnion(resource):
		return s.prefix + "/registry/"
	case IsCustom(resource):
		base = s.prefix + customPrefix + resource + "/"
	}
	if namespace == "" {
		return base
	}
	return base + namespace + "/"
}

func (s *Store) objectKey(k Key) string {
	return s.scopePrefix(k.Resource, k.Namespace) + k.Name
}

// counterKey holds the next generateName number for (resource, namespace,
// generatePrefix).
func (s *Store) counterKey(resource, namespace, generatePrefix string) string {
	if namespace == "" {
		return s.prefix + "/generatename/" + resource + "/" + generatePrefix
	}
	return s.prefix + "/generatename/" + resource + "/" + namespace + "/" + generatePrefix
}

// parseKey turns an etcd key under resource's prefix back into a Key: the
// remainder is "namespace/name" or, cluster-scoped, "name".
func (s *Store) parseKey(resource string, etcdKey []byte) Key {
	rest := strings.TrimPrefix(string(etcdKey), s.scopePrefix(resource, ""))
	switch {
	case spansResources(resource): // "<resource>/..." or "custom/<resource>/..."
		resource, rest, _ = strings.Cut(rest, "/")
		if resource == "custom" {
			resource, rest, _ = strings.Cut(rest, "/")
		}
	case resource == AllCustom: // "resource/namespace/name" or "resource/name"
		resource, rest, _ = strings.Cut(rest, "/")
	}
	if ns, name, ok := strings.Cut(rest, "/"); ok {
		return Key{Resource: resource, Namespace: ns, Name: name}
	}
	return Key{Resource: resource, Name: rest}
}
