//go:build !convergeselfcheck

package registry

// selfCheck turns on converge's own self-checks (checkKept). Off without
// the convergeselfcheck build tag; this package's own tests turn it on
// (selfcheck_test.go).
var selfCheck = false
