package model

// Mutant selects a deliberately wrong variant of one component's decision,
// used to prove that the invariants and the property have teeth.
type Mutant string

const (
	// MutantNone is the correct model.
	MutantNone Mutant = ""
	// MutantReplicaSetNoExpectations counts pods from a stale cache.
	MutantReplicaSetNoExpectations Mutant = "replicaset-no-expectations"
	// MutantEndpointsListsUnready lists pods that are not ready.
	MutantEndpointsListsUnready Mutant = "endpoints-lists-unready"
	// MutantGCTrustsCache deletes dependents whose owner is missing from a stale view.
	MutantGCTrustsCache Mutant = "gc-trusts-cache"
)

// Mutants lists every variant, for tests and the CLI.
var Mutants = []Mutant{
	MutantReplicaSetNoExpectations, MutantEndpointsListsUnready, MutantGCTrustsCache,
}
