package myers

import (
	"math/rand/v2"
	"testing"
)

// apply checks that ops turns a into b and returns the number of edits.
func apply(t *testing.T, a, b []int, ops []Op) int {
	t.Helper()
	i, j, edits := 0, 0, 0
	for _, op := range ops {
		switch op {
		case Eq:
			if i >= len(a) || j >= len(b) || a[i] != b[j] {
				t.Fatalf("Eq at a[%d], b[%d] does not match: a=%v b=%v ops=%v", i, j, a, b, ops)
			}
			i, j = i+1, j+1
		case Del:
			i, edits = i+1, edits+1
		case Ins:
			j, edits = j+1, edits+1
		}
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("script consumed a[:%d] and b[:%d] of %d and %d", i, j, len(a), len(b))
	}
	return edits
}

// lcsLen is the textbook O(NM) dynamic program, the oracle for minimality.
func lcsLen(a, b []int) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func randSeq(r *rand.Rand, n, alphabet int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = r.IntN(alphabet)
	}
	return s
}

func TestDiffIsMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		a := randSeq(r, r.IntN(30), 1+r.IntN(5))
		b := randSeq(r, r.IntN(30), 1+r.IntN(5))
		got := apply(t, a, b, Diff(a, b, -1))
		want := len(a) + len(b) - 2*lcsLen(a, b)
		if got != want {
			t.Fatalf("a=%v b=%v: %d edits, minimal is %d", a, b, got, want)
		}
	}
}

func TestDiffWithSmallLimitStaysValid(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 2000; iter++ {
		a := randSeq(r, r.IntN(60), 1+r.IntN(8))
		b := randSeq(r, r.IntN(60), 1+r.IntN(8))
		apply(t, a, b, Diff(a, b, 1+r.IntN(3)))
	}
}

func TestDiffDeletesBeforeInserts(t *testing.T) {
	ops := Diff([]int{1, 2, 3}, []int{1, 4, 3}, 0)
	want := []Op{Eq, Del, Ins, Eq}
	if len(ops) != len(want) {
		t.Fatalf("ops = %v, want %v", ops, want)
	}
	for i := range ops {
		if ops[i] != want[i] {
			t.Fatalf("ops = %v, want %v", ops, want)
		}
	}
}

func TestDiffEdgeCases(t *testing.T) {
	for _, c := range []struct{ a, b []int }{
		{nil, nil}, {nil, []int{1, 2}}, {[]int{1, 2}, nil}, {[]int{1}, []int{1}},
		{[]int{1, 1, 1}, []int{1}}, {[]int{1, 2, 3, 4}, []int{4, 3, 2, 1}},
	} {
		got := apply(t, c.a, c.b, Diff(c.a, c.b, 0))
		if want := len(c.a) + len(c.b) - 2*lcsLen(c.a, c.b); got != want {
			t.Errorf("a=%v b=%v: %d edits, want %d", c.a, c.b, got, want)
		}
	}
}

func BenchmarkDiffDisjoint5000(b *testing.B) {
	x, y := make([]int, 5000), make([]int, 5000)
	for i := range x {
		x[i], y[i] = i, i+5000
	}
	for b.Loop() {
		Diff(x, y, 0)
	}
}

func BenchmarkDiffRandom5000(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x, y := randSeq(r, 5000, 50), randSeq(r, 5000, 50)
	for b.Loop() {
		Diff(x, y, 0)
	}
}
