package project

import (
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/converge-dev/converge/model"
)

// upstreamFenceposts is Kubernetes' ResolveFenceposts (deployment util)
// on apimachinery's scaled values: surge rounds up, unavailable rounds
// down, and both zero make unavailable 1.
func upstreamFenceposts(t *testing.T, surge, unavailable *intstr.IntOrString, replicas int) (int, int) {
	t.Helper()
	s, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(surge, intstr.FromInt32(0)), replicas, true)
	if err != nil {
		t.Fatal(err)
	}
	u, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(unavailable, intstr.FromInt32(0)), replicas, false)
	if err != nil {
		t.Fatal(err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return s, u
}

// The model's ResolveSurge, on what the projection reads from a
// Deployment, gives what upstream's deployment controller gives: the
// examples of its docs and tests, then every percentage and count up to
// 100 replicas.
func TestModelResolveSurgeIsUpstreams(t *testing.T) {
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	num := func(n int32) *intstr.IntOrString { v := intstr.FromInt32(n); return &v }
	check := func(replicas int, surge, unavailable *intstr.IntOrString) (int, int) {
		t.Helper()
		ms, mu := model.IntOrPercent{}, model.IntOrPercent{}
		var err error
		if surge != nil {
			if ms, err = intOrPercent(*surge); err != nil {
				t.Fatal(err)
			}
		}
		if unavailable != nil {
			if mu, err = intOrPercent(*unavailable); err != nil {
				t.Fatal(err)
			}
		}
		s, u := model.ResolveSurge(replicas, ms, mu)
		ws, wu := upstreamFenceposts(t, surge, unavailable, replicas)
		if s != ws || u != wu {
			t.Fatalf("replicas %d, maxSurge %v, maxUnavailable %v: model %d/%d, upstream %d/%d", replicas, surge, unavailable, s, u, ws, wu)
		}
		return s, u
	}
	for _, tc := range []struct {
		replicas       int
		surge, unavail *intstr.IntOrString
		wantS, wantU   int
	}{
		{10, pct("25%"), pct("25%"), 3, 2}, // defaults on 10: 2.5 up and down
		{3, pct("25%"), pct("25%"), 1, 0},  // the seed
		{10, pct("30%"), pct("30%"), 3, 3}, // the docs' example
		{0, pct("25%"), pct("25%"), 0, 1},  // both zero: unavailable 1
		{5, num(0), num(0), 0, 1},
		{5, num(2), num(1), 2, 1},
		{4, nil, nil, 0, 1},
		{10, pct("0%"), pct("100%"), 0, 10},
		{7, pct("50%"), num(0), 4, 0},
	} {
		if s, u := check(tc.replicas, tc.surge, tc.unavail); s != tc.wantS || u != tc.wantU {
			t.Errorf("replicas %d, maxSurge %v, maxUnavailable %v: %d/%d, want %d/%d", tc.replicas, tc.surge, tc.unavail, s, u, tc.wantS, tc.wantU)
		}
	}
	for replicas := 0; replicas <= 100; replicas++ {
		for v := int32(0); v <= 100; v += 7 {
			check(replicas, pct(strconv.Itoa(int(v))+"%"), pct(strconv.Itoa(int(100-v))+"%"))
			check(replicas, num(v), pct(strconv.Itoa(int(v))+"%"))
		}
	}
}
