package broker

// The seeded bugs. Each is off by default; a test turns one on to measure
// whether CheckOperator catches it. Each is modelled on a public bug
// report or a bug class of a published study, cited next to it, and is
// written the way that bug was written in its operator; the code that
// reads the flag carries a short comment naming it again.
var (
	// BugDeleteByName: the finalizer deletes the Deployment by name,
	// without checking that this Broker (this uid) controls it. After a
	// restart against a lagging apiserver the operator sees an old,
	// terminating Broker of the same name and deletes the Deployment of
	// the Broker recreated since. Sieve stale state:
	// rabbitmq/cluster-operator#648, datastax/cass-operator#412
	// (K8SSAND-559), pravega/zookeeper-operator#312.
	BugDeleteByName bool

	// BugSkipWhenObserved: children are reconciled only when the
	// Broker's generation moved past status.observedGeneration ("nothing
	// changed since the last reconcile"), so another writer's edit or
	// delete of a child is never repaired, and a reconcile cut short after
	// the status write is never finished. Sieve unobserved state (the
	// operator acts on the event, not on the state); the anti-pattern asked
	// about in operator-framework/operator-sdk#2636.
	BugSkipWhenObserved bool

	// BugNoDeploymentWatch: SetupWithManager does not watch the Deployment
	// it owns, so status.readyReplicas and the Available condition are
	// refreshed only when something else triggers a reconcile.
	// instaclustr/cassandra-operator#40 ("Watch the StatefulSet": the
	// controller was not notified when pods went away) and
	// OT-CONTAINER-KIT/redis-operator#988 (reconcile on StatefulSet update).
	BugNoDeploymentWatch bool

	// BugRestartOnlyOnConfigWrite: the pod template's config-hash
	// annotation is bumped only in the reconcile that wrote the new
	// ConfigMap. A crash between the ConfigMap write and the Deployment
	// write leaves the ConfigMap new and the pods never restarted with it.
	// Sieve intermediate state: konpyutaika/nifikop#49
	// (Orange-OpenSource/nifikop#130, "NiFi config cannot be reloaded if
	// the operator crashes in the middle of reconciliation").
	BugRestartOnlyOnConfigWrite bool

	// BugFinalizerFirst: on delete, the finalizer is removed before the
	// registry entry is: a crash or a failed request in between leaves the
	// entry of a Broker that no longer exists, and nothing cleans it.
	// Wrong cleanup order, Sieve intermediate state (a crash between two
	// dependent writes; OSDI'22 §3.1) and the ISSTA'24 operator-bug
	// study's resource-cleanup bugs.
	BugFinalizerFirst bool

	// BugRegistryExistsIsDone: registration creates the registry
	// ConfigMap and treats AlreadyExists as success, although the existing
	// registry does not hold this Broker's entry: the second Broker of a
	// namespace is never registered. Non-idempotent create-if-absent, the
	// ISSTA'24 study's "incorrect handling of existing resources".
	BugRegistryExistsIsDone bool

	// BugOverwriteMetadata: the Deployment's labels and annotations are
	// replaced by the operator's own on every update, wiping what other
	// writers set there (the deployment controller's revision annotation,
	// a user's labels), so the two writers fight forever.
	// rabbitmq/cluster-operator#999 ("Operator should not claim ownership
	// of fields set by the original deployer").
	BugOverwriteMetadata bool

	// BugRegistryMergePatch: registration writes the whole registry map
	// as read from the cache with a merge patch, unconditioned on the
	// resourceVersion it read: an entry another Broker removed meanwhile
	// comes back (a lost update). Sieve stale state (acting on a stale
	// read) and the ISSTA'24 study's concurrency bugs.
	BugRegistryMergePatch bool

	// BugNoOwnerOnConfig: the ConfigMap is created without an
	// ownerReference, so it outlives its Broker.
	// pravega/zookeeper-operator#42 ("PVC are not deleted when ZK is
	// deleted": no owner reference).
	BugNoOwnerOnConfig bool

	// BugStatusFromSpec: status.replicas and status.readyReplicas copy
	// spec.replicas instead of the Deployment's status, so the Broker
	// reports ready pods that do not exist. Status not derived from
	// observation: the ISSTA'24 study's incorrect-status bugs, and
	// Acto's status oracle (xlab-uiuc/acto#340).
	BugStatusFromSpec bool

	// BugPortOnlyOnCreate: the Service's port is set when the Service is
	// created and never updated, so a change of spec.port does not reach
	// it. Acto's most common class, a spec change not reflected in the
	// system: rabbitmq/cluster-operator#992 (storageClassName change not
	// applied), tarantool/tarantool-operator#61 (StatefulSet fields not
	// updated).
	BugPortOnlyOnCreate bool

	// BugSwallowDeploymentError: a failed Deployment write is logged and
	// the reconcile goes on and succeeds, so nothing retries it until
	// another event comes. Swallowed error, the ISSTA'24 study's
	// error-handling bugs; the retry-less failed update of
	// OT-CONTAINER-KIT/redis-operator#1097.
	BugSwallowDeploymentError bool

	// BugPausedBlocksDelete: the paused check returns before the deletion
	// branch, so a paused Broker that is deleted keeps its finalizer and
	// stays Terminating forever. An early return that starves the rest of
	// the reconcile: xlab-uiuc/acto#62 (cass-operator partially
	// inoperable after a requeue short-circuits it).
	BugPausedBlocksDelete bool

	// BugGeneratedConfigName: the ConfigMap gets a generated name, found
	// again through status.configMapName; a crash before the status write,
	// or a cache that has not yet seen it, makes a second ConfigMap (a
	// non-idempotent create). libopenstorage/operator#674 (kept creating
	// pods its view did not show) and Sieve intermediate state.
	BugGeneratedConfigName bool

	// BugAvailableIgnoresRollout: Available is True as soon as enough
	// pods are ready, without waiting for the Deployment to observe its
	// new generation and replace the old pods. Status from a partial
	// observation: kstatus's Current requires observedGeneration, and the
	// ISSTA'24 study's incorrect-status bugs.
	BugAvailableIgnoresRollout bool
)
