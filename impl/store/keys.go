package store

import (
	"fmt"
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
	if k.Resource == AllCustom {
		return fmt.Errorf("%w: %s names no object's resource", ErrInvalid, AllCustom)
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
	if resource == AllCustom && namespace != "" {
		return fmt.Errorf("%w: %s spans every namespace", ErrInvalid, AllCustom)
	}
	return nil
}

// AllCustom names every custom resource at once, as a scope to list,
// watch or fingerprint (never a key's resource): a component that
// follows custom resources needs one stream in revision order, whatever
// CRDs come and go. No Kubernetes resource name holds a '*'.
const AllCustom = "*custom"

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
	if resource == AllCustom { // "resource/namespace/name" or "resource/name"
		resource, rest, _ = strings.Cut(rest, "/")
	}
	if ns, name, ok := strings.Cut(rest, "/"); ok {
		return Key{Resource: resource, Namespace: ns, Name: name}
	}
	return Key{Resource: resource, Name: rest}
}
