// Package registry gives converge's store Kubernetes apiserver semantics:
// defaulting, validation, system metadata, optimistic concurrency, the
// status and binding subresources, graceful pod deletion, selectors and
// watches. It is written to agree with the model's store (model/store.go,
// model/tx.go) write for write, so that the stepped implementation and the
// model stay in lockstep. Every error it returns is, or wraps, an
// *api.StatusError with Kubernetes' reason and code.
//
// Guarantees:
//   - A call that fails writes nothing, and objects returned never share
//     memory with the caller's input or with each other. Inputs are never
//     mutated. Every returned object carries its resourceVersion, the etcd
//     mod revision as a decimal string. A caller that hands its objects
//     over (HandOver) waives these: its inputs may be kept and changed, and
//     its answers are shared, to be read only.
//   - Create is create-if-absent (409 AlreadyExists). With an empty name and
//     a metadata.generateName it names the object generateName+N from a
//     per-(resource, namespace, generateName) counter (store.CreateGenerated),
//     so names are deterministic, and a registry alone on its store never
//     reuses one (see store.CreateGenerated for stores sharing an etcd). It
//     sets uid (random), creationTimestamp (Config.Clock) and generation 1,
//     clears deletionTimestamp, and rejects a set resourceVersion (400). As in
//     Kubernetes, a create takes no status for kinds whose status is written
//     through the status subresource: a Pod starts with phase Pending;
//     Deployments, ReplicaSets and Services start with an empty status;
//     Namespaces start Active, with "kubernetes" added to spec.finalizers.
//     Nodes keep the status they are created with.
//   - With Config.ServiceIPRange set, a Service created without a clusterIP
//     gets the lowest address of the range no Service holds (never the
//     range's first); headless and ExternalName Services get none, and an
//     update that leaves clusterIP empty keeps the stored one.
//   - Namespaced objects with namespace "" go to "default". Objects may be
//     created in "default" and "kube-system" without a Namespace object;
//     any other namespace must exist as a Namespace (404 NotFound
//     otherwise; 403 Forbidden, cause NamespaceTerminating, in one whose
//     phase is Terminating). Deleting a Namespace does not delete what is
//     in it: the namespace controller, a component, does.
//   - Update is a compare-and-swap when metadata.resourceVersion is set (409
//     Conflict if stale) and last-write-wins when it is "". It never creates
//     (404). uid, creationTimestamp, generateName, deletionTimestamp and
//     deletionGracePeriodSeconds are kept from the stored object. generation
//     is 1 at create and goes up by one on an update whose spec (compared as
//     JSON, after defaulting) changed; never on a status update. Kinds with
//     no spec (Endpoints) keep generation 1.
//   - Unlike Kubernetes, and like the model, an update that changes nothing
//     still writes: it gets a new resourceVersion and watchers see MODIFIED.
//   - Status subresource (every kind whose resource table entry lists
//     "status": deployments, replicasets, pods, nodes, services, namespaces):
//     Update keeps the stored status, and UpdateStatus takes only the status
//     (spec and metadata come from the stored object; resourceVersion is
//     still a precondition). UpdateStatus on other kinds is 405.
//   - Delete removes at once, except a Pod bound to a Node that exists, which
//     is deleted gracefully: deletionTimestamp (Clock) and
//     deletionGracePeriodSeconds (the option, else the pod's
//     terminationGracePeriodSeconds) are set and the pod stays. Deleting a pod
//     that is already terminating writes nothing and returns it.
//     gracePeriodSeconds=0 removes at once whatever the state. Preconditions
//     (uid, resourceVersion) fail with 409 Conflict. An immediately deleted
//     object is returned with the deletion's revision as its resourceVersion.
//     Finalizers hold an object, as upstream's generic store
//     (finalizers.go): a delete first sets the garbage collector's
//     finalizer its propagationPolicy asks for (Orphan: "orphan";
//     Foreground: "foregroundDeletion"; Background drops both; none named
//     keeps them); an object left with finalizers stays, with
//     deletionTimestamp and a grace period of 0 (a pod's own when its
//     kubelet must stop it), and a delete that changes nothing writes
//     nothing. The garbage collector, a component, orphans or deletes the
//     dependents and removes its finalizer. An update may not add a
//     finalizer to an object being deleted (422 on metadata.finalizers);
//     one that removes the last finalizer of an object with no grace
//     period left is not written: the object is deleted as it was stored
//     (watchers see one DELETED event, as upstream's errEmptiedFinalizers),
//     and the answer is the update's object at the revision it was judged
//     against, as upstream's deleteWithoutFinalizers answers.
//     A Namespace follows upstream (namespace.go): a first delete only
//     marks it (deletionTimestamp, phase Terminating, the policy's GC
//     finalizer); a later one leaves it while spec.finalizers holds it,
//     and is then the generic delete. FinalizeNamespace (the finalize
//     subresource) writes spec.finalizers; an update or finalize that
//     leaves a namespace being deleted with neither spec.finalizers nor
//     metadata.finalizers removes it. A plain Update keeps spec.finalizers.
//   - Dry runs (WithDryRun, or DeleteOptions.dryRun=["All"]) run every
//     check of a write and answer with its result, writing nothing.
//   - Bind checks, in the model's order: the node exists and its Ready
//     condition is "True" (else 409 Conflict "node ... missing or not ready",
//     the model's ErrNodeNotReady), the pod exists (404), the pod is not
//     bound yet (409), the resourceVersion precondition if given (409). It
//     sets spec.nodeName in one compare-and-swap on the pod. The node check
//     is a read before that write, not part of it; or, for a binding with a
//     resourceVersion whose pod and node this registry holds already, a
//     compare of the node's revision in the write's transaction.
//   - List returns one consistent snapshot with its revision in
//     metadata.resourceVersion. Label selectors and field selectors filter
//     it: metadata.name and metadata.namespace for every resource, and the
//     fields Kubernetes supports per kind (selectableFields in list.go: pods'
//     spec.nodeName and status.phase, events' involvedObject.*, ...);
//     Limit and Continue page it, and a page is filled up to Limit with
//     matching objects. A compacted revision is 410 Expired.
//   - Watch delivers every change after resourceVersion in revision order,
//     as ADDED, MODIFIED or DELETED with a decoded object whose
//     resourceVersion is the event's revision (the deletion revision for
//     DELETED). resourceVersion "" or "0" first sends the current objects as
//     ADDED, as Kubernetes does. A compacted history ends the stream with one
//     ERROR event whose Err is 410 Expired; any other failure ends it with an
//     ERROR event too. Cancelling ctx closes the channel. WatchShared is
//     Watch whose objects are the registry's own, for readers that never
//     change them (informer caches): it spares a copy per event.
//   - The registry decodes a stored value about once (recent.go): it keeps
//     per key the last value it wrote or read, with its revision and what
//     decoding it gives, and a write keeps the object it encodes, made what
//     decoding gives in place (api.CanonicalizeProtobuf, or api.Canonicalize
//     for a custom resource's JSON), when a watch is open on its resource.
//   - Values are stored as kube-apiserver stores them (object.go): built-in
//     kinds as Kubernetes protobuf (api.Protobuf), custom resources as JSON
//     at their storage version; a built-in kind stored as JSON still reads.
//   - A cancelled or expired ctx fails a call with an error that is both a
//     504 Timeout StatusError and, through errors.Is, the context's error.
package registry
