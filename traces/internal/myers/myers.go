package myers

// Op is one step of an edit script.
type Op byte

const (
	Eq  Op = iota // a[i] == b[j]: advance both
	Del           // a[i] is not in b: advance a
	Ins           // b[j] is not in a: advance b
)

// DefaultLimit bounds the steps of each search for a split point when
// Diff's limit is 0.
const DefaultLimit = 1024

// Diff returns an edit script turning a into b. limit bounds the search cost
// per split; 0 means DefaultLimit and a negative limit means no bound.
func Diff(a, b []int, limit int) []Op {
	if limit == 0 {
		limit = DefaultLimit
	}
	d := &differ{
		a: a, b: b, limit: limit,
		delA: make([]bool, len(a)), insB: make([]bool, len(b)),
	}
	n := len(a) + len(b) + 3
	d.vf, d.vb = make([]int, 2*n+1), make([]int, 2*n+1)
	d.compare(0, len(a), 0, len(b))
	ops := make([]Op, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && d.delA[i]:
			ops, i = append(ops, Del), i+1
		case j < len(b) && d.insB[j]:
			ops, j = append(ops, Ins), j+1
		default:
			ops, i, j = append(ops, Eq), i+1, j+1
		}
	}
	return ops
}

type differ struct {
	a, b       []int
	delA, insB []bool // marks elements not in the common subsequence
	vf, vb     []int  // furthest x per diagonal, forward and backward
	limit      int
}

// compare marks the edits that turn a[aLo:aHi] into b[bLo:bHi].
func (d *differ) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		aLo, bLo = aLo+1, bLo+1
	}
	for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
	}
	switch {
	case aLo == aHi:
		for j := bLo; j < bHi; j++ {
			d.insB[j] = true
		}
		return
	case bLo == bHi:
		for i := aLo; i < aHi; i++ {
			d.delA[i] = true
		}
		return
	}
	x, y := d.split(aLo, aHi, bLo, bHi)
	d.compare(aLo, aLo+x, bLo, bLo+y)
	d.compare(aLo+x, aHi, bLo+y, bHi)
}

// split finds a point (x, y), relative to aLo and bLo, on a shortest edit
// path through the edit graph of a[aLo:aHi] and b[bLo:bHi], which differ at
// both ends, by running paths from both corners until they meet. Past the cost
// limit it returns the forward point furthest from the start instead. The
// point is never (0, 0) or the far corner, so both halves are smaller.
func (d *differ) split(aLo, aHi, bLo, bHi int) (x, y int) {
	a, b := d.a, d.b
	n, m := aHi-aLo, bHi-bLo
	delta := n - m
	odd := delta&1 != 0
	maxD := (n + m + 1) / 2
	off := maxD + 1
	vf, vb := d.vf[:2*off+1], d.vb[:2*off+1]
	for i := range vf {
		vf[i], vb[i] = -1, -1 // -1: diagonal not reached yet
	}
	vf[off+1], vb[off+1] = 0, 0
	// Diagonals whose paths left the grid are trimmed from the ranges.
	fStart, fEnd, bStart, bEnd := 0, 0, 0, 0
	for D := 0; D <= maxD; D++ {
		// Forward paths from (0,0) on diagonals k = x - y.
		for k := -D + fStart; k <= D-fEnd; k += 2 {
			if k == -D || (k != D && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1]
			} else {
				x = vf[off+k-1] + 1
			}
			y = x - k
			for x < n && y < m && a[aLo+x] == b[bLo+y] {
				x, y = x+1, y+1
			}
			vf[off+k] = x
			switch {
			case x > n:
				fEnd += 2
			case y > m:
				fStart += 2
			case odd:
				// The backward path on the same diagonal has run D-1 steps.
				if kb := off + delta - k; kb >= 0 && kb < len(vb) && onGrid(vb[kb], kb-off, n, m) && x >= n-vb[kb] {
					return x, y
				}
			}
		}
		// Backward paths from (n,m), measured from the end: x' = n - x.
		for k := -D + bStart; k <= D-bEnd; k += 2 {
			var xb int
			if k == -D || (k != D && vb[off+k-1] < vb[off+k+1]) {
				xb = vb[off+k+1]
			} else {
				xb = vb[off+k-1] + 1
			}
			yb := xb - k
			for xb < n && yb < m && a[aHi-1-xb] == b[bHi-1-yb] {
				xb, yb = xb+1, yb+1
			}
			vb[off+k] = xb
			switch {
			case xb > n:
				bEnd += 2
			case yb > m:
				bStart += 2
			case !odd:
				if kf := off + delta - k; kf >= 0 && kf < len(vf) && onGrid(vf[kf], kf-off, n, m) && vf[kf] >= n-xb {
					x = vf[kf]
					return x, x - (kf - off)
				}
			}
		}
		if d.limit > 0 && D >= d.limit {
			return d.furthest(D, n, m, off, fStart, fEnd)
		}
	}
	// Unreachable: the two paths always meet by maxD.
	return 1, 0
}

// onGrid reports whether the point at x on diagonal k was reached (x >= 0)
// and lies inside the n x m edit graph.
func onGrid(x, k, n, m int) bool {
	y := x - k
	return x >= 0 && x <= n && y >= 0 && y <= m
}

// furthest returns the valid forward point after D steps that has gone
// furthest (largest x+y) toward the far corner.
func (d *differ) furthest(D, n, m, off, fStart, fEnd int) (x, y int) {
	best, bx, by := 0, 1, 0
	for k := -D + fStart; k <= D-fEnd; k += 2 {
		x := d.vf[off+k]
		y := x - k
		if !onGrid(x, k, n, m) || (x == n && y == m) {
			continue
		}
		if x+y > best {
			best, bx, by = x+y, x, y
		}
	}
	return bx, by
}
