package properties

import (
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
)

// Main runs a test binary's tests: call it from the test package's
// TestMain,
//
//	func TestMain(m *testing.M) { properties.Main(m) }
//
// CheckOperator, CheckController and FuzzOperator start one embedded etcd
// per test binary on first use; Main stops it and removes its directory
// once the tests end, then exits with the tests' code. Without it the
// directory is left behind in the system's temporary directory.
func Main(m *testing.M) { storetest.Main(m) }
