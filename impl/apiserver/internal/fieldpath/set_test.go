package fieldpath

import (
	"errors"
	"testing"
)

func TestFieldsV1RoundTrip(t *testing.T) {
	item := Path{Field("spec"), Field("containers"), Key(map[string]any{"name": "nginx"})}
	s := NewSet(
		Path{Field("metadata"), Field("labels")},
		Path{Field("metadata"), Field("labels"), Field("app")},
		item, item.Child(Field("image")),
		Path{Field("spec"), Field("replicas")},
		Path{Field("metadata"), Field("finalizers"), Value("x")},
	)
	b, err := s.MarshalFieldsV1()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"f:metadata":{"f:finalizers":{"v:\"x\"":{}},"f:labels":{".":{},"f:app":{}}},` +
		`"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{}}},"f:replicas":{}}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	back, err := ParseFieldsV1(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != s.Len() || back.Difference(s).Len() != 0 {
		t.Fatalf("round trip: %v vs %v", back.Paths(), s.Paths())
	}
	if got := item.Child(Field("image")).String(); got != `.spec.containers[name="nginx"].image` {
		t.Errorf("String() = %s", got)
	}
}

func TestSetOperations(t *testing.T) {
	a := NewSet(Path{"f:a"}, Path{"f:b"}, Path{"f:b", "f:c"})
	b := NewSet(Path{"f:b"}, Path{"f:d"})
	if got := a.Intersection(b).Len(); got != 1 {
		t.Errorf("intersection %d", got)
	}
	if got := a.Difference(b).Len(); got != 2 {
		t.Errorf("difference %d", got)
	}
	if got := a.Union(b).Len(); got != 4 || a.Len() != 3 {
		t.Errorf("union %d, a mutated to %d", got, a.Len())
	}
	if !a.HasBelow(Path{"f:b"}) || a.HasBelow(Path{"f:a"}) {
		t.Error("HasBelow")
	}
}

func TestParseFieldsV1Malformed(t *testing.T) {
	for _, in := range []string{`[1]`, `{"x":{}}`, `{"f:a":1}`, `{`} {
		if _, err := ParseFieldsV1([]byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: want ErrMalformed, got %v", in, err)
		}
	}
}
