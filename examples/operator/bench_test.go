package operator_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/properties"
)

// BenchmarkCheckOperator is the example operator's check at 50 actions
// with faults: interleavings per minute, and the time against the raw
// etcd floor of the same writes (a CAS Txn each, measured in this run).
func BenchmarkCheckOperator(b *testing.B) {
	cli := storetest.Client(b)
	ctx := context.Background()
	revNow := func() int64 {
		resp, err := cli.Get(ctx, "/bench-operator-rev")
		if err != nil {
			b.Fatal(err)
		}
		return resp.Header.Revision
	}
	casLatency := rawCASLatency(b, cli, 2000)
	defer properties.SetRapidFlags(b, map[string]string{"rapid.checks": strconv.Itoa(b.N), "rapid.steps": "50", "rapid.seed": "1", "rapid.nofailfile": "true"})()
	rep := properties.NewReport(b.Name())
	prop := properties.OperatorProperty(b, webApp())
	rev0 := revNow()
	b.ResetTimer()
	start := time.Now()
	rapid.Check(rep, prop)
	elapsed := time.Since(start)
	b.StopTimer()
	if rep.Failed() {
		b.Fatalf("the shipped operator failed:\n%s", rep.Text())
	}
	writes := float64(revNow() - rev0)
	n := float64(b.N)
	b.ReportMetric(n/elapsed.Minutes(), "interleavings/min")
	b.ReportMetric(float64(elapsed.Milliseconds())/n, "ms/interleaving")
	b.ReportMetric(writes/n, "etcd-writes/interleaving")
	b.ReportMetric(elapsed.Seconds()/(writes*casLatency.Seconds()), "x-floor")
}

// rawCASLatency is the mean time of one raw etcd CAS (a Txn comparing the
// mod revision, then a put) on the test binary's etcd.
func rawCASLatency(b *testing.B, c *clientv3.Client, n int) time.Duration {
	ctx := context.Background()
	key := "/bench-operator-floor"
	resp, err := c.Put(ctx, key, "x")
	if err != nil {
		b.Fatal(err)
	}
	rev := resp.Header.Revision
	start := time.Now()
	for range n {
		txn, err := c.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).Then(clientv3.OpPut(key, "x")).Commit()
		if err != nil || !txn.Succeeded {
			b.Fatalf("raw CAS: %v", err)
		}
		rev = txn.Header.Revision
	}
	return time.Since(start) / time.Duration(n)
}
