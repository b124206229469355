package model

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// LineCache renders snapshots as Snapshot.Lines does and remembers each
// object's lines from one call to the next. Stored objects are immutable
// (Meta), and a snapshot shares them, so an object met in an earlier
// snapshot renders the same lines again, all but its owner reference's:
// whether the owner is gone depends on the snapshot, and that line is
// rendered every time. The lockstep renders two snapshots after every
// step, each mostly of the objects of the step before.
//
// The zero value is ready; a nil *LineCache renders without remembering.
// It keeps the objects of the last two rendered snapshots and forgets the
// rest. Not safe for concurrent use.
type LineCache struct {
	objs  map[Obj]*objLines
	epoch uint64 // counts Lines calls
	live  int    // objects in the last call, for the sweep
}

// objLines is one object's lines without its owner reference's.
type objLines struct {
	ref     Ref
	lines   []string // the ref's line, then a line per field
	ownerAt int      // where the owner reference's line goes in lines
	epoch   uint64   // the last Lines call that met the object
}

// render is o's lines under r, the owner reference's left out.
func render(r Ref, o Obj) *objLines {
	name := r.String()
	fs := fields(o, "")
	e := &objLines{ref: r, lines: make([]string, 0, 1+len(fs)), ownerAt: 1}
	e.lines = append(e.lines, name)
	for _, f := range fs {
		e.lines = append(e.lines, name+" "+f.Name+"="+f.Value)
	}
	if len(fs) > 0 && fs[0].Name == "metadata.labels" {
		e.ownerAt = 2 // Fields renders the owner reference after the labels
	}
	return e
}

// lookup is o's lines under r, remembered or rendered.
func (c *LineCache) lookup(r Ref, o Obj) *objLines {
	if c == nil {
		return render(r, o)
	}
	if e := c.objs[o]; e != nil && e.ref == r {
		e.epoch = c.epoch
		return e
	}
	e := render(r, o)
	e.epoch = c.epoch
	if c.objs == nil {
		c.objs = map[Obj]*objLines{}
	}
	c.objs[o] = e
	return e
}

// sweep forgets the objects neither of the last two calls met, once the
// cache holds twice as many as a call meets.
func (c *LineCache) sweep() {
	if len(c.objs) <= 2*c.live+64 {
		return
	}
	for o, e := range c.objs {
		if e.epoch+1 < c.epoch {
			delete(c.objs, o)
		}
	}
}

// Lines renders s canonically, one line per object field, container and
// rule: Snapshot.Lines.
func (c *LineCache) Lines(s *Snapshot) []string {
	if c != nil {
		c.epoch++
		c.live = len(s.Objects)
		defer c.sweep()
	}
	type entry struct {
		r   Ref
		key string
	}
	refs := make([]entry, 0, len(s.Objects))
	for r := range s.Objects {
		refs = append(refs, entry{r, r.Key()})
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].r.Kind != refs[j].r.Kind {
			return refs[i].r.Kind < refs[j].r.Kind
		}
		if refs[i].r.Type != refs[j].r.Type {
			return refs[i].r.Type < refs[j].r.Type
		}
		return refs[i].key < refs[j].key
	})
	var out []string
	for _, x := range refs {
		o := s.Objects[x.r]
		e := c.lookup(x.r, o)
		out = append(out, e.lines[:e.ownerAt]...)
		// As Fields' add keeps a field: not empty, "0" or "false".
		if v := s.ownerField(o.meta()); v != "" && v != "0" && v != "false" {
			out = append(out, e.lines[0]+" "+ownerFieldName+"="+v)
		}
		out = append(out, e.lines[e.ownerAt:]...)
	}
	for _, c := range s.Containers {
		state := "running"
		switch {
		case !c.Running && c.Reason == ReasonOOMKilled:
			state = "exited(" + strconv.Itoa(c.ExitCode) + " OOMKilled)"
		case !c.Running:
			state = "exited(" + strconv.Itoa(c.ExitCode) + ")"
		case c.Unready:
			state = "running unready"
		}
		owner := "pod=" + c.Pod
		if p, _ := s.Objects[RefTo(KindPod, c.Pod)].(*Pod); p == nil || p.UID != c.PodUID {
			owner += " (gone)"
		}
		out = append(out, "containers/"+c.ID+" "+owner+" image="+c.Image+" "+state)
	}
	for _, n := range sortedKeys(s.Rules) {
		for _, svc := range sortedKeys(s.Rules[n]) {
			r := s.Rules[n][svc]
			out = append(out, "rules/"+n+"/"+svc+" port="+strconv.Itoa(r.Port)+" backends="+strings.Join(r.Backends, ","))
		}
	}
	for _, img := range s.FailingImages {
		out = append(out, "images/"+img+" pulls fail")
	}
	for _, n := range s.CPUFullNodes {
		out = append(out, "cpu/"+n+" full (another tenant's)")
	}
	return append(out, "clock="+strconv.FormatInt(s.Now, 10))
}

// Diff names every line that differs between two snapshots, labelled with
// the given names: model.Diff.
func (c *LineCache) Diff(a, b *Snapshot, an, bn string) []string {
	al, bl := c.Lines(a), c.Lines(b)
	if slices.Equal(al, bl) {
		return nil // the lockstep's every step: no sets to build
	}
	inA := map[string]bool{}
	for _, l := range al {
		inA[l] = true
	}
	inB := map[string]bool{}
	for _, l := range bl {
		inB[l] = true
	}
	var out []string
	for _, l := range al {
		if !inB[l] {
			out = append(out, "only in "+an+": "+l)
		}
	}
	for _, l := range bl {
		if !inA[l] {
			out = append(out, "only in "+bn+": "+l)
		}
	}
	return out
}
