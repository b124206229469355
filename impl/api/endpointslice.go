package api

import (
	discoveryv1 "k8s.io/api/discovery/v1"
)

// EndpointSlice is discovery.k8s.io/v1 EndpointSlice, the scalable
// successor of Endpoints that kube-proxy and DNS read upstream. Its body
// is k8s.io/api's: an address type, endpoints and ports at the top
// level, with no spec or status.
type EndpointSlice = discoveryv1.EndpointSlice

// EndpointSliceList is discovery.k8s.io/v1 EndpointSliceList.
type EndpointSliceList = discoveryv1.EndpointSliceList

var (
	_ Object     = (*EndpointSlice)(nil)
	_ ListObject = (*EndpointSliceList)(nil)
)

// DiscoveryGroup is the group EndpointSlices are served in.
const DiscoveryGroup = "discovery.k8s.io"

// discoveryEntries are the resource table's rows for discovery.k8s.io:
// upstream gives endpointslices no short names and no categories.
var discoveryEntries = []entry{
	{ResourceInfo{Resource: "endpointslices", Singular: "endpointslice", Kind: "EndpointSlice", ListKind: "EndpointSliceList",
		Group: DiscoveryGroup, Version: "v1", Namespaced: true, Verbs: standardVerbs},
		func() Object { return &EndpointSlice{} }, func() ListObject { return &EndpointSliceList{} }},
}
