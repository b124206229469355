// Package foreign holds operators written the way an operator author
// writes them, without converge in mind (kubebuilder's layout, hand-written
// deep copies), each over a different part of controller-runtime: a
// StatefulSet with a scale subresource and a cross-field CEL rule
// (memcache), Jobs replaced when their immutable template changes, two
// CRD versions, metadata-only and channel sources and server-side apply
// (tasks), a cluster-scoped kind that owns a Namespace and a Secret with a
// random token (tenant), a Deployment restarted by a config hash and a
// registry shared by every instance behind a finalizer (broker, whose 15
// seeded bugs come from public bug reports and are measured, not asserted:
// its TestMeasure). Each correct operator must pass CheckOperator
// with its default settings (broker's with its image drawn from real
// tags: an unpullable free-form image never lets the run quiesce, a false
// alarm TestMeasure reports), and each other seeded bug must be caught
// (probetest.ExpectFailure). They were the false alarms found on 2026-11-27: a
// request that stored nothing counted as a write, a second delete of a
// terminating namespace hung, a Job's replacement read as churn, a random
// token or a uid-derived label failed the differential, and a one-field
// update that broke a cross-field rule failed the check.
package foreign
