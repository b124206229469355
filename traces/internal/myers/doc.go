// Package myers computes a shortest edit script between two sequences of
// integers with Myers' O(ND) algorithm in linear space ("An O(ND) Difference
// Algorithm and Its Variations", 1986, section 4b): it searches from both
// corners of the edit graph for a point on a shortest path, splits there and
// recurses.
//
// Guarantees:
//   - The script is valid: applying it to a gives b.
//   - Within each run of edits, deletions come before insertions.
//   - Memory is O(N+M); time is O((N+M)·D) for edit distance D.
//   - The script is minimal unless the cost limit is hit. When the search for
//     a split point passes the limit, it splits at the furthest point reached:
//     the script stays valid, may be longer than minimal, and the time stays
//     near O((N+M)·limit) per level of recursion.
package myers
