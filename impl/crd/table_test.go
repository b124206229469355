package crd

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
)

func TestPrinterColumnsAndCells(t *testing.T) {
	v := widgetVersion(t, "v1")
	var names []string
	for _, c := range v.PrinterColumns() {
		names = append(names, c.Name+"="+c.JSONPath)
	}
	if got, want := names, []string{"Replicas=.spec.replicas", "Size=.spec.size", "Age=.metadata.creationTimestamp"}; !slices.Equal(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}

	cells, err := v.Cells(object(t, validWidget))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 || cells[0] != "w" || cells[1] != int64(3) || cells[2] != "small" {
		t.Fatalf("cells = %#v, want [w 3 small <age>]", cells)
	}
	if age, ok := cells[3].(string); !ok || age == "" || age == "<unknown>" {
		t.Errorf("age cell = %#v, want a relative age", cells[3])
	}

	// A missing path gives a nil cell, not an error.
	obj := object(t, validWidget)
	delete(obj["spec"].(map[string]any), "size")
	if cells, err = v.Cells(obj); err != nil || cells[2] != nil {
		t.Errorf("cells without size = %#v, %v; want a nil Size cell", cells, err)
	}
}

// Without additionalPrinterColumns upstream prints Name and Age.
func TestDefaultPrinterColumns(t *testing.T) {
	v := widgetVersion(t, "v1beta1")
	cols := v.PrinterColumns()
	if len(cols) != 1 || cols[0].Name != "Age" || cols[0].Type != "date" {
		t.Fatalf("default columns = %+v, want [Age]", cols)
	}
	cells, err := v.Cells(object(t, validWidget))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 || cells[0] == nil {
		t.Errorf("cells %v, want the name and the age", cells)
	}
}

func TestFieldSet(t *testing.T) {
	v := widgetVersion(t, "v1")
	set, err := v.FieldSet(object(t, validWidget))
	if err != nil {
		t.Fatal(err)
	}
	want := fields.Set{"metadata.name": "w", "metadata.namespace": "default", "spec.size": "small"}
	if set.String() != want.String() {
		t.Errorf("field set = %v, want %v", set, want)
	}
}
