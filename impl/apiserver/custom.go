package apiserver

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/converge-dev/converge/impl/api"
)

// What the apiserver does for custom resources beyond the built-ins'
// paths: each is served at every version its CRD serves, with "None"
// conversion, so an object read at another version than the storage one
// differs only in its apiVersion.

// atVersion is info as served at version: its subresources too.
func atVersion(info api.ResourceInfo, version string) api.ResourceInfo {
	info.Version = version
	for i := range info.Subresources {
		if info.Subresources[i].Group == info.Group {
			info.Subresources[i].Version = version
		}
	}
	return info
}

// isCustom says whether rt is a custom resource's route.
func isCustom(rt route) bool {
	_, ok := api.LookupCustom(rt.Resource.Resource)
	return ok
}

// customGroups are the groups of the custom resources, sorted, each with
// its served versions in Kubernetes' priority order (v2 > v1 > v1beta1),
// preferred first.
func customGroups() ([]string, map[string][]string) {
	versions := map[string][]string{}
	for _, info := range api.Resources() {
		c, ok := api.LookupCustom(info.Resource)
		if !ok {
			continue
		}
		for _, v := range c.Served {
			if !slices.Contains(versions[info.Group], v) {
				versions[info.Group] = append(versions[info.Group], v)
			}
		}
	}
	groups := make([]string, 0, len(versions))
	for g, vs := range versions {
		groups = append(groups, g)
		sort.Slice(vs, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(vs[i], vs[j]) > 0 })
	}
	sort.Strings(groups)
	return groups, versions
}

// groupVersions are the versions a group serves, preferred first.
func groupVersions(group string) []string {
	if slices.Contains(listedGroups, group) || group == "" {
		return builtinVersions(group)
	}
	_, versions := customGroups()
	return versions[group]
}

// servesGroupVersion: group/version is served, listed in discovery or
// not (autoscaling/v1, Scale's version, is not).
func servesGroupVersion(group, version string) bool {
	return slices.Contains(groupVersions(group), version) || slices.Contains(servedGroupVersions, group+"/"+version)
}

// allListedGroups are the groups /apis lists: the built-in ones, then the
// custom resources'.
func allListedGroups() []string {
	groups, _ := customGroups()
	out := slices.Clone(listedGroups)
	for _, g := range groups {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// servedAs is obj as served at version: a custom object or list read at
// another version than the one it is stored at has that version's
// apiVersion ("None" conversion). Anything else is returned as it is.
func servedAs(obj any, version string) any {
	at := func(apiVersion string) string {
		group, _, ok := strings.Cut(apiVersion, "/")
		if !ok || version == "" {
			return apiVersion
		}
		return group + "/" + version
	}
	switch o := obj.(type) {
	case *api.CustomObject:
		if o == nil || at(o.APIVersion) == o.APIVersion {
			return obj
		}
		c := *o
		c.APIVersion = at(o.APIVersion)
		return &c
	case *api.CustomObjectList:
		if o == nil || at(o.APIVersion) == o.APIVersion {
			return obj
		}
		l := *o
		l.APIVersion = at(o.APIVersion)
		l.Items = slices.Clone(o.Items)
		for i := range l.Items {
			l.Items[i].APIVersion = at(l.Items[i].APIVersion)
		}
		return &l
	}
	return obj
}

// requestedVersion is the version in a /apis/{group}/{version}/... path.
func requestedVersion(r *http.Request) string {
	segs := splitPath(r.URL.Path)
	if len(segs) >= 3 && segs[0] == "apis" {
		return segs[2]
	}
	return ""
}

// atStorageVersion: rt reads objects at the version they are stored at,
// so their stored bytes can be served as they are.
func atStorageVersion(rt route) bool {
	c, ok := api.LookupCustom(rt.Resource.Resource)
	return !ok || c.Info.Version == rt.Resource.Version
}

// columnPrinter is what impl/crd's compiled version prints with: the CRD's
// additionalPrinterColumns, evaluated by upstream's table convertor.
type columnPrinter interface {
	PrinterColumns() []apiextensionsv1.CustomResourceColumnDefinition
	Cells(obj map[string]any) ([]any, error)
}

// customPrinter is kubectl's table for a custom resource or list: Name,
// then the columns of the version it is read at.
func customPrinter(obj any) ([]tableColumn, func(api.Object) []any, bool) {
	var tm api.TypeMeta
	switch o := obj.(type) {
	case *api.CustomObject:
		tm = o.TypeMeta
	case *api.CustomObjectList:
		tm = o.TypeMeta
		tm.Kind = strings.TrimSuffix(tm.Kind, "List")
	default:
		return nil, nil, false
	}
	info, ok := api.LookupKind(tm.Kind)
	c, custom := api.LookupCustom(info.Resource)
	_, version, _ := strings.Cut(tm.APIVersion, "/")
	p, printable := c.Schemas[version].(columnPrinter)
	if !ok || !custom || !printable {
		return nil, nil, false
	}
	cols := []tableColumn{col("Name", "string", 0)}
	cols[0].Description = metav1.ObjectMeta{}.SwaggerDoc()["name"]
	for _, d := range p.PrinterColumns() {
		cols = append(cols, tableColumn{Name: d.Name, Type: d.Type, Format: d.Format, Description: d.Description, Priority: d.Priority})
	}
	return cols, func(o api.Object) []any {
		m, err := o.(*api.CustomObject).ToMap()
		if err == nil {
			if cells, err := p.Cells(m); err == nil {
				return cells
			}
		}
		row := make([]any, len(cols))
		row[0] = api.Meta(o).Name
		return row
	}, true
}
