package fuzz

import (
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
)

// TestMain gives every process one embedded etcd, started on first use:
// under -fuzz each worker is a process of its own, so FuzzLockstep's inputs
// share their worker's etcd and never start one.
func TestMain(m *testing.M) { storetest.Main(m) }
