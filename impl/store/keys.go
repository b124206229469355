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
	return nil
}

// scopePrefix is the etcd prefix of every object of resource in namespace
// (all namespaces when ""), ending in '/' so "pods/a" never matches "pods/ab".
func (s *Store) scopePrefix(resource, namespace string) string {
	if namespace == "" {
		return s.prefix + "/registry/" + resource + "/"
	}
	return s.prefix + "/registry/" + resource + "/" + namespace + "/"
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
	if ns, name, ok := strings.Cut(rest, "/"); ok {
		return Key{Resource: resource, Namespace: ns, Name: name}
	}
	return Key{Resource: resource, Name: rest}
}
