package crd

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apimachinery/pkg/runtime"
)

// scheme is the apiextensions scheme as the apiextensions apiserver builds
// it (pkg/apiserver/apiserver.go): the v1 defaulters and the v1 <-> internal
// conversions are registered by install.Install, so using it gives exactly
// the apiserver's defaulting and hub conversion.
var scheme = newScheme()

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	install.Install(s)
	return s
}

// typer names custom resources by their apiVersion and kind; it is the typer
// upstream's strategies embed for unstructured objects.
var typer = crdserverscheme.NewUnstructuredObjectTyper()

// toInternal converts to the hub version upstream's strategies and
// validation take. It deep-copies first because conversion may share memory.
func toInternal(in *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	out := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(in.DeepCopy(), out, nil); err != nil {
		return nil, fmt.Errorf("crd: converting %q to the internal version: %w", in.Name, err)
	}
	return out, nil
}

// fromInternal writes the hub version back into out, as the apiserver does
// when it stores a CRD as v1.
func fromInternal(in *apiextensions.CustomResourceDefinition, out *apiextensionsv1.CustomResourceDefinition) error {
	converted := &apiextensionsv1.CustomResourceDefinition{}
	if err := scheme.Convert(in, converted, nil); err != nil {
		return fmt.Errorf("crd: converting %q to v1: %w", in.Name, err)
	}
	converted.TypeMeta = out.TypeMeta
	*out = *converted
	return nil
}
