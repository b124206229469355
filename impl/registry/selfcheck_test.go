package registry

// This package's tests check every object a write keeps, build tag or
// not: init runs before the first call of checkingKept.
func init() { selfCheck = true }
