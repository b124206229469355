package traces

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Version is the schema version written in every event's "v" field.
const Version = 1

// MaxLineBytes bounds one encoded event (without its newline).
const MaxLineBytes = 1 << 20

var (
	// ErrBadTrace is wrapped by every error about the content of a trace read
	// by a Reader.
	ErrBadTrace = errors.New("traces: bad trace")
	// ErrInvalidEvent is wrapped by errors about an event handed to a Writer
	// or to TraceEvent.Validate.
	ErrInvalidEvent = errors.New("traces: invalid event")
	// ErrUnknownMask is wrapped when a field name given to ValidateMask is not
	// maskable.
	ErrUnknownMask = errors.New("traces: unknown mask field")
)

// TraceEvent is one action in a trace. Field order is the order on the wire.
type TraceEvent struct {
	V      int     `json:"v"`                // schema version, always 1
	Seq    int     `json:"seq"`              // 1, 2, 3... without gaps
	Actor  string  `json:"actor"`            // "user", "fault", "scheduler", "kubelet/node-2", ...
	Action string  `json:"action"`           // lower-case token: "apply", "deliver", "reconcile", ...
	Key    string  `json:"key,omitempty"`    // what the action is about: "myapp", "pods/myapp-7d9f-0", a node
	Detail string  `json:"detail,omitempty"` // free text, e.g. the delivered watch event
	Script string  `json:"script,omitempty"` // the action as one script line (model.ParseAction), for replay
	Seen   int     `json:"seen"`             // events delivered to the actor so far
	Writes []Write `json:"writes,omitempty"` // writes made by the action, in order
	Err    string  `json:"error,omitempty"`  // the action's error, if any
	Digest string  `json:"digest"`           // digest of the projected state after the action
	Rev    int64   `json:"rev,omitempty"`    // volatile: absolute store revision
	Time   string  `json:"time,omitempty"`   // volatile: wall clock, running driver only
}

// Write is one write made by an action, to the store or to the node's runtime
// and proxy rules.
type Write struct {
	Verb     string   `json:"verb"`             // CREATE UPDATE STATUS DELETE BIND RUNTIME-START ...
	Resource string   `json:"resource"`         // "pods", "deployments", "containers", "rules", ...
	Name     string   `json:"name"`             // namespace omitted when "default"
	Fields   []string `json:"fields,omitempty"` // changed fields, sorted
	Err      string   `json:"error,omitempty"`
	Rev      int64    `json:"rev,omitempty"` // volatile
	UID      string   `json:"uid,omitempty"` // volatile
}

// Digest returns "sha256:" and the first 16 hex digits of data's SHA-256: short
// enough to read in a diff, long enough that unrelated states do not collide.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// maskable lists the field names Mask accepts, in wire order.
var maskable = []string{
	"key", "detail", "seen", "writes", "writes.fields", "writes.error",
	"writes.rev", "writes.uid", "error", "digest", "rev", "time",
}

// MaskFields returns the field names that Mask and DiffOptions.Mask accept.
func MaskFields() []string { return slices.Clone(maskable) }

// ValidateMask reports the first name that Mask would not understand.
func ValidateMask(fields []string) error {
	for _, f := range fields {
		if !slices.Contains(maskable, f) {
			return fmt.Errorf("%w %q (known: %s)", ErrUnknownMask, f, strings.Join(maskable, ", "))
		}
	}
	return nil
}

// Mask returns a copy of e with the volatile fields zeroed (rev, time and each
// write's rev and uid), and the extra fields named, such as "digest", "seen",
// "detail", "error", "writes.fields". Unknown names are ignored; check them
// with ValidateMask. e itself is not modified.
func Mask(e TraceEvent, extra ...string) TraceEvent {
	e.Rev, e.Time = 0, ""
	masked := func(name string) bool { return slices.Contains(extra, name) }
	if masked("key") {
		e.Key = ""
	}
	if masked("detail") {
		e.Detail = ""
	}
	if masked("seen") {
		e.Seen = 0
	}
	if masked("error") {
		e.Err = ""
	}
	if masked("digest") {
		e.Digest = ""
	}
	if masked("writes") || len(e.Writes) == 0 {
		e.Writes = nil
		return e
	}
	ws := make([]Write, len(e.Writes))
	for i, w := range e.Writes {
		w.Rev, w.UID = 0, ""
		if masked("writes.fields") {
			w.Fields = nil
		}
		if masked("writes.error") {
			w.Err = ""
		}
		ws[i] = w
	}
	e.Writes = ws
	return e
}

// Validate checks e on its own (not its seq against a previous event).
func (e TraceEvent) Validate() error {
	if p := e.problem(); p != "" {
		return fmt.Errorf("%w: seq %d: %s", ErrInvalidEvent, e.Seq, p)
	}
	return nil
}

// problem describes what is wrong with e, or returns "".
func (e TraceEvent) problem() string {
	switch {
	case e.V != Version:
		return fmt.Sprintf("v %d, want %d", e.V, Version)
	case e.Seq < 1:
		return fmt.Sprintf("seq %d, want 1 or more", e.Seq)
	case e.Actor == "":
		return "actor is empty"
	case e.Action == "":
		return "action is empty"
	case !isToken(e.Action, unicode.IsLower):
		return fmt.Sprintf("action %q is not a lower-case token", e.Action)
	case e.Digest == "":
		return "digest is empty"
	case e.Seen < 0:
		return fmt.Sprintf("seen %d is negative", e.Seen)
	case e.Rev < 0:
		return fmt.Sprintf("rev %d is negative", e.Rev)
	case strings.ContainsAny(e.Script, "\r\n"):
		return "script is more than one line"
	}
	for _, s := range []string{e.Actor, e.Key, e.Detail, e.Script, e.Err, e.Digest, e.Time} {
		if !utf8.ValidString(s) {
			return fmt.Sprintf("invalid UTF-8 in %q", s)
		}
	}
	for i, w := range e.Writes {
		if p := w.problem(); p != "" {
			return fmt.Sprintf("write %d: %s", i+1, p)
		}
	}
	return ""
}

func (w Write) problem() string {
	switch {
	case w.Verb == "":
		return "verb is empty"
	case !isToken(w.Verb, unicode.IsUpper):
		return fmt.Sprintf("verb %q is not an upper-case token", w.Verb)
	case w.Resource == "":
		return "resource is empty"
	case w.Name == "":
		return "name is empty"
	case w.Rev < 0:
		return fmt.Sprintf("rev %d is negative", w.Rev)
	}
	for i, f := range w.Fields {
		if f == "" {
			return "empty field name"
		}
		if i > 0 && w.Fields[i-1] >= f {
			return fmt.Sprintf("fields not sorted and unique: %q before %q", w.Fields[i-1], f)
		}
	}
	for _, s := range append([]string{w.Resource, w.Name, w.Err, w.UID}, w.Fields...) {
		if !utf8.ValidString(s) {
			return fmt.Sprintf("invalid UTF-8 in %q", s)
		}
	}
	return ""
}

// isToken reports whether s is letters of one case, digits, '-', '_' and
// '.', starting with a letter or digit.
func isToken(s string, letter func(rune) bool) bool {
	for i, r := range s {
		switch {
		case r < utf8.RuneSelf && letter(r), r >= '0' && r <= '9':
		case i > 0 && (r == '-' || r == '_' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// String renders e on one line, raft-style, for logs and diffs:
//
//	12 replicaset-controller reconcile myapp-7d9f seen=5 -> CREATE pods/myapp-7d9f-0, UPDATE replicasets/myapp-7d9f [status.replicas] digest=sha256:…
//
// Empty and zero fields are left out, so fields zeroed by Mask do not appear.
func (e TraceEvent) String() string {
	return string(e.appendText(strconv.AppendInt(nil, int64(e.Seq), 10)))
}

// Text is String without the seq number, for places that show it apart.
func (e TraceEvent) Text() string { return string(e.appendText(nil)) }

func (e TraceEvent) appendText(b []byte) []byte {
	sep := func() {
		if len(b) > 0 {
			b = append(b, ' ')
		}
	}
	sep()
	b = appendAtom(b, e.Actor)
	b = append(b, ' ')
	b = appendAtom(b, e.Action)
	if e.Key != "" {
		b = append(b, ' ')
		b = appendAtom(b, e.Key)
	}
	if e.Detail != "" {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, e.Detail)
	}
	if e.Seen != 0 {
		b = append(b, " seen="...)
		b = strconv.AppendInt(b, int64(e.Seen), 10)
	}
	for i, w := range e.Writes {
		if i == 0 {
			b = append(b, " -> "...)
		} else {
			b = append(b, ", "...)
		}
		b = w.appendText(b)
	}
	if e.Err != "" {
		b = append(b, " error="...)
		b = strconv.AppendQuote(b, e.Err)
	}
	if e.Digest != "" {
		b = append(b, " digest="...)
		b = appendAtom(b, e.Digest)
	}
	if e.Rev != 0 {
		b = append(b, " rev="...)
		b = strconv.AppendInt(b, e.Rev, 10)
	}
	if e.Time != "" {
		b = append(b, " time="...)
		b = appendAtom(b, e.Time)
	}
	return b
}

// String renders w as it appears after "->" in TraceEvent.String:
// "UPDATE replicasets/myapp-7d9f [status.replicas]".
func (w Write) String() string { return string(w.appendText(nil)) }

func (w Write) appendText(b []byte) []byte {
	b = appendAtom(b, w.Verb)
	b = append(b, ' ')
	b = appendAtom(b, w.Resource+"/"+w.Name)
	if len(w.Fields) > 0 {
		b = append(b, " ["...)
		for i, f := range w.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAtom(b, f)
		}
		b = append(b, ']')
	}
	if w.Err != "" {
		b = append(b, " error="...)
		b = strconv.AppendQuote(b, w.Err)
	}
	if w.Rev != 0 {
		b = append(b, " rev="...)
		b = strconv.AppendInt(b, w.Rev, 10)
	}
	if w.UID != "" {
		b = append(b, " uid="...)
		b = appendAtom(b, w.UID)
	}
	return b
}

// appendAtom writes s bare when that cannot be misread (no spaces, quotes,
// brackets or commas), and Go-quoted otherwise.
func appendAtom(b []byte, s string) []byte {
	if s == "" || strings.ContainsAny(s, "\"\\,[]") {
		return strconv.AppendQuote(b, s)
	}
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return strconv.AppendQuote(b, s)
		}
	}
	return append(b, s...)
}
