package cluster

import (
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
)

// floorValue is about the size of a Pod as the registry stores it.
var floorValue = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bench","namespace":"default","labels":{"app":"myapp"}},"spec":{"nodeName":"node-1","containers":[{"name":"c","image":"nginx:1"}]}}`

// BenchmarkRawEtcdCAS is the floor for the stepped benchmarks, measured on
// the same embedded etcd and shared client in the same run.
func BenchmarkRawEtcdCAS(b *testing.B) { storetest.BenchRawCAS(b, floorValue) }
