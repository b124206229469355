// Package project maps the implementation's Kubernetes API objects to the
// model's objects and back (ARCHITECTURE.md, contract 3: projection).
// ToModel is the projection that lockstep compares against the model; Apply
// and New turn the model's decisions back into API objects, so components
// can reuse the model's pure decision logic.
//
// Guarantees:
//   - Every function is pure apart from UIDs numbering: no clock, no I/O, no
//     randomness. Timestamps the model carries (node heartbeats) are logical
//     times stored as Unix seconds; timestamps it does not carry are never
//     invented.
//   - ToModel never mutates its input and shares no memory with it. Empty
//     maps and slices project as nil, so projections compare with
//     reflect.DeepEqual.
//   - New(o) then ToModel gives back o (UIDs mapped through the same UIDs),
//     for every kind, provided o is representable (see the limits below).
//   - Apply returns a deep copy of base. It writes only the model-visible
//     fields whose projection differs from o, so Apply(b, ToModel(b)) is
//     deeply equal to b, and everything the model does not carry (uids,
//     timestamps, annotations, ports, probes, other conditions, ...) is left
//     as base has it; the one derived field is a pod's hostIP, set from its
//     podIP when unset. ToModel(Apply(b, o)) gives back o.
//   - UIDs numbers Kubernetes uids in first-seen order, 0 for "", and is safe
//     for concurrent use.
//   - Nothing panics on user input; problems come back as errors wrapping
//     ErrUnsupported, ErrMismatch or ErrUnknownUID (or the api package's
//     ErrInvalidIntOrPercent).
//
// Limits of the mapping (documented, not hidden):
//   - A node's podCIDR must be a model pod range (127.<100+i/250>.<i%250>.0/24);
//     other ranges do not project (ErrUnsupported).
//   - A pod template's Template (template.go) is a digest: ToModel reads it
//     and New and Apply keep the owner's template, but the model cannot
//     render one. New of a Deployment with a Template is ErrUnsupported,
//     Apply of "" resets the template to the bare one, and a ReplicaSet
//     whose owner's template no longer digests to its Template is
//     ErrMismatch.
//   - A Recreate Deployment projects as RollingUpdate maxSurge 0,
//     maxUnavailable 100%, the nearest strategy the model has.
//   - Endpoints with no ready addresses have no subset (Kubernetes requires
//     an address in every subset), so they project with Port 0.
//   - Capacity memory rounds down to whole MiB, request memory rounds up.
//   - A Pod made from a template gets the model's requests (100m/128Mi by
//     default), whatever the template asks; limits are kept as they are.
//   - Deleting with no deletionTimestamp writes one at Unix 0: the model
//     knows that, not when. New and Apply never invent other timestamps.
package project
