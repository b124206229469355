package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// DefaultContext is the number of equal events WriteText shows on each side
// of a divergence when given a negative context.
const DefaultContext = 3

// maxShownChanges caps the changed lines WriteText prints for one region, so
// a trace that diverges for good does not flood a CI log.
const maxShownChanges = 50

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// WriteText prints res for people: a header naming the first divergence, the
// region around it as a unified-diff-like listing ('-' only in a, '+' only in
// b, '~' changed: a's line then b's, then why) with context equal events on
// each side (negative: DefaultContext), and the per-actor summary. Line
// numbers are 1-based positions in a and b. ANSI colour only when color is
// set. Context lines need a result made by Diff; a result decoded from JSON
// prints without them.
func WriteText(w io.Writer, res DiffResult, color bool, context int) error {
	if context < 0 {
		context = DefaultContext
	}
	p := &textPrinter{color: color, width: max(3, len(strconv.Itoa(max(res.LenA, res.LenB))))}
	if res.Equal {
		p.printf(ansiBold, "traces equal: %d events", res.LenA)
		_, err := w.Write(p.buf.Bytes())
		return err
	}
	t := res.Totals()
	p.printf(ansiBold, "traces differ: %d added, %d removed, %d changed in %s (a: %d events, b: %d events)",
		t.Added, t.Removed, t.Changed, plural(len(res.Hunks), "hunk"), res.LenA, res.LenB)
	if fd := res.FirstDivergence; fd != nil {
		p.printf(ansiBold, "first divergence: a line %d, b line %d: %s", fd.IndexA+1, fd.IndexB+1, fd.Reason)
	}
	if len(res.Hunks) > 0 {
		p.region(res, context)
	}
	p.summary(res, t)
	_, err := w.Write(p.buf.Bytes())
	return err
}

type textPrinter struct {
	buf   bytes.Buffer
	color bool
	width int // of a line-number column
}

func (p *textPrinter) printf(ansi, format string, args ...any) {
	if p.color && ansi != "" {
		p.buf.WriteString(ansi)
		fmt.Fprintf(&p.buf, format, args...)
		p.buf.WriteString(ansiReset + "\n")
		return
	}
	fmt.Fprintf(&p.buf, format, args...)
	p.buf.WriteByte('\n')
}

// line prints one listing line; a or b is -1 when that column is blank.
func (p *textPrinter) line(ansi string, mark byte, a, b int, text string) {
	num := func(i int) string {
		if i < 0 {
			return ""
		}
		return strconv.Itoa(i + 1)
	}
	p.printf(ansi, "%c %*s %*s  %s", mark, p.width, num(a), p.width, num(b), text)
}

// region prints the first hunk, merged with later hunks that are close
// enough for their context to touch, with context around it.
func (p *textPrinter) region(res DiffResult, context int) {
	hunks := res.Hunks
	n := 1
	for n < len(hunks) && hunks[n].StartA-hunks[n-1].EndA <= 2*context {
		n++
	}
	first, last := hunks[0], hunks[n-1]
	lead := min(context, first.StartA, first.StartB)
	trail := min(context, res.LenA-last.EndA, res.LenB-last.EndB)
	startA, startB := first.StartA-lead, first.StartB-lead
	p.buf.WriteByte('\n')
	p.printf(ansiCyan, "@@ a %s, b %s @@", span(startA, last.EndA+trail), span(startB, last.EndB+trail))

	shown, truncated := 0, false
	x, y := startA, startB
regions:
	for _, h := range hunks[:n] {
		p.context(res, x, y, h.StartA)
		for _, c := range h.Changes {
			if shown == maxShownChanges {
				p.printf("", "… %d more changes in this region", countChanges(hunks[:n])-shown)
				truncated = true
				break regions
			}
			shown++
			p.change(c)
		}
		x, y = h.EndA, h.EndB
	}
	if !truncated {
		p.context(res, x, y, x+trail)
	}
	if rest := hunks[n:]; len(rest) > 0 {
		p.printf("", "… %s with %s more from a line %d on, not shown",
			plural(len(rest), "hunk"), plural(countChanges(rest), "change"), rest[0].StartA+1)
	}
}

// context prints the equal events a[x:endA], which pair with b[y:].
func (p *textPrinter) context(res DiffResult, x, y, endA int) {
	for ; x < endA && x < len(res.a) && y < len(res.b); x, y = x+1, y+1 {
		p.line("", ' ', x, y, res.a[x].Text())
	}
}

func (p *textPrinter) change(c Change) {
	text := func(e *TraceEvent) string {
		if e == nil {
			return "?"
		}
		return e.Text()
	}
	switch c.Op {
	case Removed:
		p.line(ansiRed, '-', c.IndexA, -1, text(c.A))
	case Added:
		p.line(ansiGreen, '+', -1, c.IndexB, text(c.B))
	case Changed:
		p.line(ansiYellow, '~', c.IndexA, -1, text(c.A))
		p.line(ansiYellow, '~', -1, c.IndexB, text(c.B))
		p.printf(ansiCyan, "  %*s %*s  ^ %s", p.width, "", p.width, "", c.Reason)
	}
}

func (p *textPrinter) summary(res DiffResult, t ActorSummary) {
	w := len("actor")
	for _, s := range res.Actors {
		w = max(w, len(s.Actor))
	}
	p.buf.WriteByte('\n')
	p.printf(ansiBold, "%-*s  %7s  %7s  %7s", w, "actor", "added", "removed", "changed")
	for _, s := range append(res.Actors, t) {
		p.printf("", "%-*s  %7d  %7d  %7d", w, s.Actor, s.Added, s.Removed, s.Changed)
	}
}

// span renders the 0-based half-open range [from, to) as 1-based lines.
func span(from, to int) string {
	switch {
	case to <= from:
		return fmt.Sprintf("after line %d", from)
	case to == from+1:
		return fmt.Sprintf("line %d", to)
	}
	return fmt.Sprintf("lines %d-%d", from+1, to)
}

func countChanges(hunks []Hunk) int {
	n := 0
	for _, h := range hunks {
		n += len(h.Changes)
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// WriteJSON writes res as one indented JSON document for machines, with every
// hunk (WriteText shows only the first region).
func WriteJSON(w io.Writer, res DiffResult) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
