package crd

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// OpenAPIV2 is the CRD's share of /openapi/v2, built as upstream's openapi
// controller builds it: builder.BuildOpenAPIV2 for every served version,
// defaults pruned (the static spec has none, and the two must merge
// cleanly), then builder.MergeSpecs. Merge it into the static spec with
// builder.MergeSpecs(static, ...).
func OpenAPIV2(crd *apiextensionsv1.CustomResourceDefinition) (*spec.Swagger, error) {
	merged := &spec.Swagger{}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		s, err := builder.BuildOpenAPIV2(crd, v.Name, builder.Options{
			V2:                      true,
			IncludeSelectableFields: selectableFieldsEnabled(),
		})
		if err != nil {
			return nil, fmt.Errorf("crd: openapi v2 for %s %s: %w", crd.Name, v.Name, err)
		}
		s.Definitions = handler.PruneDefaults(s.Definitions)
		if merged, err = builder.MergeSpecs(merged, s); err != nil {
			return nil, fmt.Errorf("crd: merging openapi v2 for %s %s: %w", crd.Name, v.Name, err)
		}
	}
	return merged, nil
}

// OpenAPIV3 is the CRD's share of /openapi/v3/apis/<group>/<version> (what
// kubectl explain reads), built as upstream's openapiv3 controller builds
// it with builder.BuildOpenAPIV3. Upstream publishes served versions only;
// so does this. Several CRDs of one group-version merge with
// builder.MergeSpecsV3.
func OpenAPIV3(crd *apiextensionsv1.CustomResourceDefinition, version string) (*spec3.OpenAPI, error) {
	served := false
	for _, v := range crd.Spec.Versions {
		served = served || (v.Name == version && v.Served)
	}
	if !served {
		return nil, fmt.Errorf("crd: %s has no served version %q", crd.Name, version)
	}
	s, err := builder.BuildOpenAPIV3(crd, version, builder.Options{
		IncludeSelectableFields: selectableFieldsEnabled(),
	})
	if err != nil {
		return nil, fmt.Errorf("crd: openapi v3 for %s %s: %w", crd.Name, version, err)
	}
	return s, nil
}

func selectableFieldsEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CustomResourceFieldSelectors)
}
