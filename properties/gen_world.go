package properties

import "pgregory.net/rapid"

// worldFault draws, one fault in four, a fault of the managed
// application's world (model/world.go): an image of the operator's
// Deployments that does not pull, a container killed for memory, a
// readiness probe that fails or passes again, a node whose spare CPU
// another tenant takes. The control plane reports
// them as the kubelet does, so an operator that writes Ready from its spec
// rather than from its Deployment's status is seen doing it. It reports
// whether it drew one.
func (r *operatorRun) worldFault(rt *rapid.T) bool {
	if r.op.NoWorldFaults {
		return false
	}
	faults := r.s.EnabledWorldFaults()
	if len(faults) == 0 || rapid.IntRange(0, 3).Draw(rt, "world fault?") != 0 {
		return false
	}
	r.apply(rapid.SampledFrom(faults).Draw(rt, "world fault"))
	return true
}

// sameWorld gives a reference run the world of this one, before it
// starts: the images that do not pull here do not pull there, and the
// nodes another tenant fills here are full there from the start
// (model/world_cpu.go says why that cannot change the end state).
func (r *operatorRun) sameWorld(ref *operatorRun) {
	ref.s.StartWorld(r.s.FailingImages(), r.s.CPUFullNodes())
}

// worldKey tells apart the reference runs of the same inputs in different
// worlds, which the shared cache keeps apart.
func (r *operatorRun) worldKey() string {
	key := ""
	if imgs := r.s.FailingImages(); len(imgs) > 0 {
		key += "\x00failing=" + compactJSON(imgs)
	}
	if full := r.s.CPUFullNodes(); len(full) > 0 {
		key += "\x00cpu-full=" + compactJSON(full)
	}
	return key
}
