package properties

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of Count disjoint slices of a campaign: check i (0-based)
// belongs to shard i%Count+1. Index is 1-based, as CI matrices count. The
// zero value is the whole campaign.
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N" (1 <= I <= N); "" is the whole campaign.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("%w: shard %q is not I/N with 1 <= I <= N", ErrBadCampaign, s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is "I/N", or "" for the whole campaign.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// whole is s with the zero value made explicit as 1/1.
func (s Shard) whole() Shard {
	if s.Count == 0 {
		return Shard{Index: 1, Count: 1}
	}
	return s
}

// Indices are the checks of a campaign of checks that belong to s, in
// order. Striping (not ranges) keeps every shard's mix of early and late
// checks the same, so shards take about the same time.
func (s Shard) Indices(checks int) []int {
	s = s.whole()
	var out []int
	for i := s.Index - 1; i < checks; i += s.Count {
		out = append(out, i)
	}
	return out
}
