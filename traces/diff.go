package traces

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/converge-dev/converge/traces/internal/myers"
)

// DiffOptions tunes Diff. The zero value compares everything but the
// volatile fields.
type DiffOptions struct {
	// Mask names fields to ignore on top of the volatile ones, as accepted
	// by Mask (see MaskFields), for example "digest" or "writes.fields".
	Mask []string
}

// Op says how an event differs between the two traces.
type Op string

const (
	Removed Op = "removed" // only in a
	Added   Op = "added"   // only in b
	Changed Op = "changed" // same actor, action and key at the same place, other fields differ
)

// Change is one differing event. Events are the masked events that were
// compared, so volatile fields are zero.
type Change struct {
	Op Op `json:"op"`
	// IndexA and IndexB are 0-based positions. For Added, IndexA is the
	// position in a where the event would go; for Removed, IndexB likewise.
	IndexA int         `json:"index_a"`
	IndexB int         `json:"index_b"`
	A      *TraceEvent `json:"a,omitempty"` // nil for Added
	B      *TraceEvent `json:"b,omitempty"` // nil for Removed
	// Fields names the fields that differ, for Changed: "detail", "seen",
	// "script", "writes", "error", "digest".
	Fields []string `json:"fields,omitempty"`
	Reason string   `json:"reason"` // one line, e.g. "writes differ: b CREATE pods/x not in a"
}

// Hunk is one run of differing events: a[StartA:EndA] became b[StartB:EndB].
type Hunk struct {
	StartA  int      `json:"start_a"`
	EndA    int      `json:"end_a"`
	StartB  int      `json:"start_b"`
	EndB    int      `json:"end_b"`
	Changes []Change `json:"changes"`
}

// ActorSummary counts the changes attributed to one actor.
type ActorSummary struct {
	Actor   string `json:"actor"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Changed int    `json:"changed"`
}

// DiffResult is the outcome of Diff.
type DiffResult struct {
	Equal           bool           `json:"equal"`
	LenA            int            `json:"len_a"`
	LenB            int            `json:"len_b"`
	FirstDivergence *Change        `json:"first_divergence,omitempty"` // nil when Equal
	Hunks           []Hunk         `json:"hunks,omitempty"`
	Actors          []ActorSummary `json:"actors,omitempty"` // sorted by actor; only actors with changes

	a, b []TraceEvent // masked events, for context lines in WriteText
}

// Diff aligns a and b and reports how they differ. Events are compared
// masked (see DiffOptions.Mask) and without their seq, so an event inserted
// in b shifts the rest without making it differ.
func Diff(a, b []TraceEvent, opts DiffOptions) DiffResult {
	res := DiffResult{LenA: len(a), LenB: len(b)}
	res.a, res.b = maskAll(a, opts.Mask), maskAll(b, opts.Mask)
	content, identity := map[string]int{}, map[string]int{}
	ka, ia := keys(res.a, content, identity)
	kb, ib := keys(res.b, content, identity)

	ops := myers.Diff(ka, kb, 0)
	i, j := 0, 0
	for p := 0; p < len(ops); {
		if ops[p] == myers.Eq {
			i, j, p = i+1, j+1, p+1
			continue
		}
		h := Hunk{StartA: i, StartB: j}
		for ; p < len(ops) && ops[p] == myers.Del; p++ {
			i++
		}
		for ; p < len(ops) && ops[p] == myers.Ins; p++ {
			j++
		}
		h.EndA, h.EndB = i, j
		h.Changes = res.pairUp(h, ia, ib)
		res.Hunks = append(res.Hunks, h)
	}
	res.Equal = len(res.Hunks) == 0
	if !res.Equal {
		first := res.Hunks[0].Changes[0]
		res.FirstDivergence = &first
	}
	res.Actors = summarize(res.Hunks)
	return res
}

func maskAll(events []TraceEvent, extra []string) []TraceEvent {
	out := make([]TraceEvent, len(events))
	for i, e := range events {
		out[i] = Mask(e, extra...)
	}
	return out
}

// keys interns each event's comparable content (its JSON without seq) and
// its identity (actor, action, key) as small integers.
func keys(events []TraceEvent, content, identity map[string]int) (ck, ik []int) {
	ck, ik = make([]int, len(events)), make([]int, len(events))
	intern := func(m map[string]int, s string) int {
		id, ok := m[s]
		if !ok {
			id = len(m)
			m[s] = id
		}
		return id
	}
	for i, e := range events {
		e.Seq = 0
		ck[i] = intern(content, string(Marshal(e)))
		ik[i] = intern(identity, e.Actor+"\x00"+e.Action+"\x00"+e.Key)
	}
	return ck, ik
}

// pairUp turns a hunk's removed and added events into changes. A removed and
// an added event with the same identity become one Changed event; pairs are
// matched greedily in order so the output stays in trace order.
func (res *DiffResult) pairUp(h Hunk, ia, ib []int) []Change {
	type pair struct{ a, b int }
	var pairs []pair
	next := h.StartB
	for x := h.StartA; x < h.EndA && next < h.EndB; x++ {
		for y := next; y < h.EndB; y++ {
			if ia[x] == ib[y] {
				pairs = append(pairs, pair{x, y})
				next = y + 1
				break
			}
		}
	}
	pairs = append(pairs, pair{h.EndA, h.EndB}) // sentinel: flush the rest
	var out []Change
	x, y := h.StartA, h.StartB
	for _, p := range pairs {
		for ; x < p.a; x++ {
			e := &res.a[x]
			out = append(out, Change{Op: Removed, IndexA: x, IndexB: y, A: e,
				Reason: "a has an event b lacks: " + clip(e.Text())})
		}
		for ; y < p.b; y++ {
			e := &res.b[y]
			out = append(out, Change{Op: Added, IndexA: x, IndexB: y, B: e,
				Reason: "b has an event a lacks: " + clip(e.Text())})
		}
		if p.a < h.EndA {
			ea, eb := &res.a[x], &res.b[y]
			fields, reason := explain(*ea, *eb)
			out = append(out, Change{Op: Changed, IndexA: x, IndexB: y, A: ea, B: eb,
				Fields: fields, Reason: reason})
			x, y = x+1, y+1
		}
	}
	return out
}

// explain names the fields in which two events of the same identity differ
// and says how, most telling first.
func explain(a, b TraceEvent) (fields []string, reason string) {
	var parts []string
	add := func(field, why string) {
		fields = append(fields, field)
		parts = append(parts, why)
	}
	if a.Detail != b.Detail {
		add("detail", fmt.Sprintf("detail differs: a %q b %q", clip(a.Detail), clip(b.Detail)))
	}
	if a.Script != b.Script {
		add("script", fmt.Sprintf("script differs: a %q b %q", clip(a.Script), clip(b.Script)))
	}
	if a.Seen != b.Seen {
		add("seen", fmt.Sprintf("seen differs: a %d b %d", a.Seen, b.Seen))
	}
	if why := writesDiffer(a.Writes, b.Writes); why != "" {
		add("writes", "writes differ: "+why)
	}
	if a.Err != b.Err {
		add("error", fmt.Sprintf("error differs: a %q b %q", clip(a.Err), clip(b.Err)))
	}
	if a.Digest != b.Digest {
		add("digest", fmt.Sprintf("digest differs: a %s b %s", a.Digest, b.Digest))
	}
	if len(parts) == 0 { // only reachable if seq-free JSON differs elsewhere
		return []string{"event"}, "events differ"
	}
	return fields, strings.Join(parts, "; ")
}

// writesDiffer describes how two write lists differ, or returns "".
func writesDiffer(a, b []Write) string {
	as, bs := writeTexts(a), writeTexts(b)
	if slices.Equal(as, bs) {
		return ""
	}
	onlyA, onlyB := without(as, bs), without(bs, as)
	if len(onlyA) == 0 && len(onlyB) == 0 {
		// Same writes, other order: show only the stretch that moved.
		lo, hi := 0, len(as)
		for as[lo] == bs[lo] {
			lo++
		}
		for as[hi-1] == bs[hi-1] {
			hi--
		}
		return fmt.Sprintf("order of writes %d-%d: a [%s] b [%s]", lo+1, hi,
			clip(strings.Join(as[lo:hi], ", ")), clip(strings.Join(bs[lo:hi], ", ")))
	}
	var parts []string
	// A write to the same object with other fields or error reads better
	// as one difference than as one missing and one extra write.
	headA := map[string]int{}
	for i, w := range onlyA {
		headA[writeHead(w)] = i + 1
	}
	usedA := make([]bool, len(onlyA))
	for _, w := range onlyB {
		if i := headA[writeHead(w)]; i > 0 && !usedA[i-1] {
			usedA[i-1] = true
			parts = append(parts, fmt.Sprintf("a %s, b %s", onlyA[i-1], w))
			continue
		}
		parts = append(parts, fmt.Sprintf("b %s not in a", w))
	}
	for i, w := range onlyA {
		if !usedA[i] {
			parts = append(parts, fmt.Sprintf("a %s not in b", w))
		}
	}
	const show = 3
	if len(parts) > show {
		parts = append(parts[:show], fmt.Sprintf("and %d more", len(parts)-show))
	}
	return strings.Join(parts, "; ")
}

func writeTexts(ws []Write) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// writeHead is "VERB resource/name", the identity of a write's text.
func writeHead(text string) string {
	if i := strings.IndexByte(text, ' '); i >= 0 {
		if j := strings.IndexByte(text[i+1:], ' '); j >= 0 {
			return text[:i+1+j]
		}
	}
	return text
}

// without returns the items of xs not matched one-for-one in ys, in order.
func without(xs, ys []string) []string {
	left := map[string]int{}
	for _, y := range ys {
		left[y]++
	}
	var out []string
	for _, x := range xs {
		if left[x] > 0 {
			left[x]--
			continue
		}
		out = append(out, x)
	}
	return out
}

func summarize(hunks []Hunk) []ActorSummary {
	byActor := map[string]*ActorSummary{}
	for _, h := range hunks {
		for _, c := range h.Changes {
			e := c.A
			if e == nil {
				e = c.B
			}
			s := byActor[e.Actor]
			if s == nil {
				s = &ActorSummary{Actor: e.Actor}
				byActor[e.Actor] = s
			}
			switch c.Op {
			case Added:
				s.Added++
			case Removed:
				s.Removed++
			case Changed:
				s.Changed++
			}
		}
	}
	out := make([]ActorSummary, 0, len(byActor))
	for _, s := range byActor {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(x, y ActorSummary) int { return strings.Compare(x.Actor, y.Actor) })
	return out
}

// Totals adds up the per-actor counts.
func (res DiffResult) Totals() ActorSummary {
	t := ActorSummary{Actor: "total"}
	for _, s := range res.Actors {
		t.Added += s.Added
		t.Removed += s.Removed
		t.Changed += s.Changed
	}
	return t
}

// clip shortens s for one-line reasons.
func clip(s string) string {
	const limit = 160
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
