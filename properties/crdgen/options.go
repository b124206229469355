package crdgen

import (
	"fmt"

	"pgregory.net/rapid"
)

// Option adjusts a Generator.
type Option func(*options) error

type options struct {
	fields   map[string]*rapid.Generator[any]
	filters  map[string][]func(any) bool
	maxItems int
	maxDepth int
	retries  int
}

// Small collections and shallow nesting keep objects readable and make
// shrinking fast; rejection needs some slack, since CEL rules often
// relate two fields.
func defaultOptions() options {
	return options{
		fields:   map[string]*rapid.Generator[any]{},
		filters:  map[string][]func(any) bool{},
		maxItems: 3,
		maxDepth: 5,
		retries:  25,
	}
}

// WithField replaces the generator of the field at path (see the package
// doc for the syntax). The field is then always present, unless gen yields
// Absent; Optional(gen) draws it present or absent, as for optional fields.
// Values may be any Go value that encodes as JSON (int, []string, ...):
// they are converted to the apiserver's JSON form.
func WithField(path string, gen *rapid.Generator[any]) Option {
	return func(o *options) error {
		if gen == nil {
			return fmt.Errorf("crdgen: WithField(%q): nil generator", path)
		}
		o.fields[path] = gen
		return nil
	}
}

// WithFilter constrains the generator of the field at path (the schema's,
// or the WithField one) to values keep accepts. It uses rapid's Filter,
// so keep should accept most values; replace the generator with WithField
// otherwise.
func WithFilter(path string, keep func(any) bool) Option {
	return func(o *options) error {
		if keep == nil {
			return fmt.Errorf("crdgen: WithFilter(%q): nil function", path)
		}
		o.filters[path] = append(o.filters[path], keep)
		return nil
	}
}

// WithMaxItems bounds arrays, maps and preserved unknown objects to n
// entries (default 3), or to the schema's minimum when that is larger.
func WithMaxItems(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("crdgen: WithMaxItems(%d): negative", n)
		}
		o.maxItems = n
		return nil
	}
}

// WithMaxDepth bounds nesting (default 5): below depth n from the root,
// optional fields are left out and collections keep their minimum size,
// and free-form JSON (preserved unknown fields) stops nesting.
func WithMaxDepth(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("crdgen: WithMaxDepth(%d): below 1", n)
		}
		o.maxDepth = n
		return nil
	}
}

// WithRetries sets how many draws in a row may fail validation before
// the property fails (default 25).
func WithRetries(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("crdgen: WithRetries(%d): below 1", n)
		}
		o.retries = n
		return nil
	}
}

// absent is Absent's type; a distinct type cannot collide with a value.
type absent struct{}

// Absent, yielded by a WithField generator, leaves the field out.
var Absent any = absent{}

// Optional draws gen's value or Absent, shrinking to Absent, as the
// schema's generator does for an optional field.
func Optional(gen *rapid.Generator[any]) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		if !rapid.Bool().Draw(t, "present") {
			return Absent
		}
		return gen.Draw(t, "value")
	})
}
