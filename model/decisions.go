package model

import "strings"

// Decision is one component's decision for one key: it reads its memory
// (and the host, only where Kubernetes components read live) and makes its
// writes through w. The model and the implementation run the same
// Decision, so replacing one changes both sides alike.
type Decision func(m *Memory, h Host, w Writer, key string)

// Decisions replaces components' shipped decisions, by component name; a
// per-node component is found by its own name first, then by its role's
// prefix ("kubelet/", "kube-proxy/"). A nil or empty Decisions runs the
// shipped code. Nothing in the model installs one: tests and `converge
// check --mutant` install the deliberately wrong decisions of the mutant
// catalogue (package properties/mutants) to prove the checks have teeth,
// so the shipping decision code carries no mutant switches.
type Decisions map[string]Decision

// For returns the decision component runs: the replacement, if any, else
// the shipped one.
func (d Decisions) For(component string) Decision {
	if f := d[component]; f != nil {
		return f
	}
	for _, prefix := range []string{kubeletPrefix, proxyPrefix} {
		if f := d[prefix]; f != nil && strings.HasPrefix(component, prefix) {
			return f
		}
	}
	return Shipped(component)
}

// Shipped returns a component's shipped decision, for a replacement that
// wraps it (nil for a name no role has).
func Shipped(component string) Decision {
	if r := roleOf(component); r != nil {
		return r.reconcile
	}
	return nil
}

// ForgetExpectations drops the key's expectations, as upstream's
// DeleteExpectations does; the key is acted on at its next reconcile
// whatever its view shows.
func (m *Memory) ForgetExpectations(key string) { delete(m.expect, key) }
