package mutants

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknown is returned by Shared for a name that has no mutant of the
// shared decision code.
var ErrUnknown = errors.New("mutants: unknown mutant")

// Shared returns the catalogue's mutant of that name that carries
// Decisions: the ones the model property, the lockstep and `converge check
// --mutant` can install.
func Shared(name string) (Mutant, error) {
	for _, m := range All {
		if m.Name == name && m.Decisions != nil {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("%w %q (one of %s)", ErrUnknown, name, strings.Join(SharedNames(), ", "))
}

// SharedNames lists, in catalogue order, the mutants that carry Decisions.
func SharedNames() []string {
	var out []string
	for _, m := range All {
		if m.Decisions != nil {
			out = append(out, m.Name)
		}
	}
	return out
}
