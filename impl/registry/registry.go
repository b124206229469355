package registry

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// Config configures a Registry.
type Config struct {
	// Store holds the objects. Required.
	Store *store.Store
	// Clock stamps creationTimestamp and deletionTimestamp. nil means
	// time.Now; the stepped driver passes a logical clock.
	Clock func() time.Time
	// ServiceIPRange, when valid, is where Services created without a
	// clusterIP get one (the lowest free address). Zero: none is allocated.
	ServiceIPRange netip.Prefix
}

// Registry serves the API's verbs over a store.
type Registry struct {
	store      *store.Store
	clock      func() time.Time
	serviceIPs netip.Prefix
	allocMu    sync.Mutex // serialises clusterIP allocation with its create
	recent     recentValues
	watching   sync.Map // resource -> *atomic.Int64, the watches open on it
	admission  atomic.Pointer[Admission]
}

// New returns a Registry over cfg.Store.
func New(cfg Config) *Registry {
	clock := cfg.Clock
	if clock == nil {
		clock = time.Now
	}
	return &Registry{store: cfg.Store, clock: clock, serviceIPs: cfg.ServiceIPRange.Masked()}
}

// Get returns the object resource/namespace/name.
func (r *Registry) Get(ctx context.Context, resource, namespace, name string) (api.Object, error) {
	info, namespace, err := objectScope(resource, namespace)
	if err != nil {
		return nil, err
	}
	obj, _, err := r.get(ctx, info, namespace, name)
	return obj, err
}

// Rev is the store's current revision.
func (r *Registry) Rev(ctx context.Context) (int64, error) {
	rev, err := r.store.Rev(ctx)
	if err != nil {
		return 0, storeError(ctx, err, api.GroupResource{}, "")
	}
	return rev, nil
}

// get reads and decodes one object; rev is its mod revision, the CAS
// precondition of a read-modify-write.
func (r *Registry) get(ctx context.Context, info api.ResourceInfo, namespace, name string) (api.Object, int64, error) {
	if name == "" {
		return nil, 0, api.NewBadRequest(fmt.Sprintf("registry: %s: name is required", info.Resource))
	}
	key := storeKey(info, namespace, name)
	so, err := r.store.Get(ctx, key)
	if err != nil {
		return nil, 0, storeError(ctx, err, info.GroupResource(), name)
	}
	obj, err := r.recent.decode(info.Resource, so, true)
	if err != nil {
		return nil, 0, err
	}
	return obj, so.Rev, nil
}

// infosByResource and infosByType hold the registry's copies of the
// resource table's entries: the table hands out a fresh copy per lookup,
// slices and all, and the registry, which only reads them, looks one up on
// every request.
var infosByResource, infosByType sync.Map // string or reflect.Type -> api.ResourceInfo

// allCustom is store.AllCustom as a collection: every custom resource, in
// every namespace and none, listed and watched at once (only in process:
// no client over HTTP can name it). A store.Union's is the same but for
// its name.
var allCustom = api.ResourceInfo{Resource: store.AllCustom, Namespaced: true, Kind: "CustomObject", ListKind: "CustomObjectList"}

// storageResource is the store's name of info's resource (api.StorageName).
func storageResource(info api.ResourceInfo) string { return api.StorageName(info.Resource) }

// storeKey is the store's key of an object of info's resource.
func storeKey(info api.ResourceInfo, namespace, name string) store.Key {
	return store.Key{Resource: storageResource(info), Namespace: namespace, Name: name}
}

// lookup finds the table entry of a stored resource.
func lookup(resource string) (api.ResourceInfo, error) {
	if store.IsUnion(resource) {
		info := allCustom
		info.Resource = resource
		return info, nil
	}
	if c, ok := api.LookupCustom(resource); ok {
		return c.Info, nil // not cached: a CRD may change or go
	}
	info, ok := cachedInfo(&infosByResource, resource, func() (api.ResourceInfo, bool) { return api.LookupResource(resource) })
	if !ok || info.ListKind == "" {
		return api.ResourceInfo{}, api.NewNotFound(api.GroupResource{Resource: resource}, "")
	}
	return info, nil
}

// objectScope resolves the namespace of one object of resource: namespaced
// kinds default to "default", cluster-scoped kinds take none.
func objectScope(resource, namespace string) (api.ResourceInfo, string, error) {
	info, err := lookup(resource)
	if err != nil {
		return info, "", err
	}
	if !info.Namespaced {
		if namespace != "" {
			return info, "", api.NewBadRequest(fmt.Sprintf("registry: %s is not namespaced, but namespace %q was given", resource, namespace))
		}
		return info, "", nil
	}
	if namespace == "" {
		namespace = api.DefaultNamespace
	}
	return info, namespace, nil
}

// collectionScope resolves the namespace of a list or watch: "" means every
// namespace.
func collectionScope(resource, namespace string) (api.ResourceInfo, error) {
	info, err := lookup(resource)
	if err != nil {
		return info, err
	}
	if !info.Namespaced && namespace != "" {
		return info, api.NewBadRequest(fmt.Sprintf("registry: %s is not namespaced, but namespace %q was given", resource, namespace))
	}
	return info, nil
}

// infoOf finds the resource of an object given to a write.
func infoOf(obj api.Object) (api.ResourceInfo, error) {
	if obj == nil || isNil(obj) {
		return api.ResourceInfo{}, api.NewBadRequest("registry: no object given")
	}
	if _, custom := obj.(*api.CustomObject); custom {
		// One Go type for every custom kind: its info is its kind's.
		info, ok := api.ResourceFor(obj)
		if !ok {
			return api.ResourceInfo{}, api.NewBadRequest(fmt.Sprintf("registry: %s is not a served kind", api.TypeOf(obj).Kind))
		}
		return info, nil
	}
	info, ok := cachedInfo(&infosByType, reflect.TypeOf(obj), func() (api.ResourceInfo, bool) { return api.ResourceFor(obj) })
	if !ok || info.ListKind == "" {
		return api.ResourceInfo{}, api.NewBadRequest(fmt.Sprintf("registry: %T is not a stored kind", obj))
	}
	return info, nil
}

func cachedInfo(cache *sync.Map, key any, find func() (api.ResourceInfo, bool)) (api.ResourceInfo, bool) {
	if info, ok := cache.Load(key); ok {
		return info.(api.ResourceInfo), true
	}
	info, ok := find()
	if ok {
		cache.Store(key, info)
	}
	return info, ok
}

// parseRV reads a resourceVersion; "" is 0 (no precondition).
func parseRV(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n <= 0 {
		return 0, api.NewBadRequest(fmt.Sprintf("registry: invalid resourceVersion %q: must be a positive decimal integer", rv))
	}
	return n, nil
}

func formatRV(rev int64) string { return strconv.FormatInt(rev, 10) }
