//go:build convergeselfcheck

package registry

// selfCheck turns on converge's own self-checks (checkKept): the
// convergeselfcheck build tag, which `make test` passes, sets it.
var selfCheck = true
