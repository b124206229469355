package properties_test

import (
	"testing"

	"github.com/converge-dev/converge/properties"
)

// A test package that calls CheckOperator, CheckController or
// FuzzOperator runs through properties.Main, which stops the embedded
// etcd once its tests end. This is the whole of its TestMain:
//
//	func TestMain(m *testing.M) { properties.Main(m) }
func ExampleMain() {
	_ = func(m *testing.M) { properties.Main(m) } // TestMain's body
}
