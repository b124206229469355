package crd

import (
	"context"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// compileTable builds upstream's table convertor. As in crdHandler, a
// column whose JSONPath does not parse is not fatal: the convertor keeps
// Name and the columns before it (CRD validation refuses such paths).
func (v *Version) compileTable(def *apiextensionsv1.CustomResourceDefinitionVersion) {
	v.columns = slices.Clone(def.AdditionalPrinterColumns)
	if len(v.columns) == 0 {
		// helpers.go's serveDefaultColumnsIfEmpty, which is unexported.
		v.columns = []apiextensionsv1.CustomResourceColumnDefinition{{
			Name:        "Age",
			Type:        "date",
			Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"],
			JSONPath:    ".metadata.creationTimestamp",
		}}
	}
	v.table, _ = tableconvertor.New(v.columns)
}

// PrinterColumns are the columns served after Name: the version's
// additionalPrinterColumns or, when it has none, upstream's default of a
// single Age column (.metadata.creationTimestamp, type date).
func (v *Version) PrinterColumns() []apiextensionsv1.CustomResourceColumnDefinition {
	return slices.Clone(v.columns)
}

// Cells is obj's table row: the name, then one cell per PrinterColumns
// entry, typed as upstream's tableconvertor types them (int64, float64,
// bool, string, nil when the path is missing, a relative age for dates).
func (v *Version) Cells(obj map[string]any) ([]any, error) {
	t, err := v.table.ConvertToTable(context.Background(), wrap(obj), &metav1.TableOptions{NoHeaders: true})
	if err != nil {
		return nil, err
	}
	if len(t.Rows) != 1 {
		return nil, fmt.Errorf("crd: %s: table has %d rows for one object", v.Kind, len(t.Rows))
	}
	return t.Rows[0].Cells, nil
}
