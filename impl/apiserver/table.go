package apiserver

import (
	"fmt"
	corev1 "k8s.io/api/core/v1"
	"net/http"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/converge-dev/converge/impl/api"
)

// meta.k8s.io/v1 Table, what kubectl get asks for (Accept ...;as=Table)
// and prints as is. Columns follow kube-apiserver's printers for the
// kinds converge serves; priority 1 columns are the -o wide ones.

type tableColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

type tableRow struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object,omitempty"`
}

type table struct {
	api.TypeMeta      `json:",inline"`
	api.ListMeta      `json:"metadata"`
	ColumnDefinitions []tableColumn `json:"columnDefinitions"`
	Rows              []tableRow    `json:"rows"`
}

type partialObjectMetadata struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata"`
}

// writeObject writes obj (an object, a list or a Status) converted as the
// client negotiated (a Table, PartialObjectMetadata).
func writeObject(w http.ResponseWriter, r *http.Request, code int, obj any) {
	obj = servedAs(obj, requestedVersion(r))
	out, err := convertOutput(r, negotiateOutput(r), obj)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, code, out)
}

func toTable(r *http.Request, obj any) (*table, bool) {
	var items []api.Object
	t := &table{TypeMeta: api.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}}
	switch o := obj.(type) {
	case api.ListObject:
		items = api.Items(o)
		t.ListMeta = *api.ListMetaOf(o)
	case api.Object:
		items = []api.Object{o}
		t.ResourceVersion = api.Meta(o).ResourceVersion
	default:
		return nil, false
	}
	cols, cells := printerFor(obj)
	t.ColumnDefinitions = cols
	t.Rows = []tableRow{}
	include := r.URL.Query().Get("includeObject")
	for _, it := range items {
		row := tableRow{Cells: cells(it)}
		switch include {
		case "None":
		case "Object":
			row.Object = it
		default:
			row.Object = partialOf(it)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, true
}

func col(name, typ string, priority int32) tableColumn {
	c := tableColumn{Name: name, Type: typ, Priority: priority, Description: name}
	if name == "Name" {
		c.Format = "name"
	}
	return c
}

// printerFor picks the columns and the row function for obj's kind.
func printerFor(obj any) ([]tableColumn, func(api.Object) []any) {
	kind := ""
	if tm, ok := api.TypeMetaFor(obj); ok {
		kind = strings.TrimSuffix(tm.Kind, "List")
	}
	name := func(o api.Object) string { return api.Meta(o).Name }
	if cols, cells, ok := customPrinter(obj); ok {
		return cols, cells
	}
	switch kind {
	case "Pod":
		return []tableColumn{col("Name", "string", 0), col("Ready", "string", 0), col("Status", "string", 0),
				col("Restarts", "string", 0), col("Age", "string", 0), col("IP", "string", 1), col("Node", "string", 1),
				col("Nominated Node", "string", 1), col("Readiness Gates", "string", 1)},
			func(o api.Object) []any {
				p := o.(*api.Pod)
				ready, restarts := 0, int32(0)
				for _, cs := range p.Status.ContainerStatuses {
					if cs.Ready {
						ready++
					}
					restarts += cs.RestartCount
				}
				status := string(p.Status.Phase)
				if p.Status.Reason != "" {
					status = p.Status.Reason
				}
				for _, c := range p.Status.Conditions {
					if c.Type == api.PodScheduled && c.Reason == api.PodReasonSchedulingGated {
						status = api.PodReasonSchedulingGated
					}
				}
				if p.DeletionTimestamp != nil {
					status = "Terminating"
				}
				return []any{name(o), fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)), status,
					strconv.Itoa(int(restarts)), age(o), orNone(p.Status.PodIP), orNone(p.Spec.NodeName),
					orNone(p.Status.NominatedNodeName), "<none>"}
			}
	case "Deployment":
		return []tableColumn{col("Name", "string", 0), col("Ready", "string", 0), col("Up-to-date", "integer", 0),
				col("Available", "integer", 0), col("Age", "string", 0), col("Containers", "string", 1),
				col("Images", "string", 1), col("Selector", "string", 1)},
			func(o api.Object) []any {
				d := o.(*api.Deployment)
				cs, is := containersImages(d.Spec.Template.Spec.Containers)
				return []any{name(o), fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
					d.Status.UpdatedReplicas, d.Status.AvailableReplicas, age(o), cs, is, api.SelectorString(d.Spec.Selector)}
			}
	case "ReplicaSet":
		return []tableColumn{col("Name", "string", 0), col("Desired", "integer", 0), col("Current", "integer", 0),
				col("Ready", "integer", 0), col("Age", "string", 0), col("Containers", "string", 1),
				col("Images", "string", 1), col("Selector", "string", 1)},
			func(o api.Object) []any {
				rs := o.(*api.ReplicaSet)
				cs, is := containersImages(rs.Spec.Template.Spec.Containers)
				return []any{name(o), replicas(rs.Spec.Replicas), rs.Status.Replicas, rs.Status.ReadyReplicas,
					age(o), cs, is, api.SelectorString(rs.Spec.Selector)}
			}
	case "Node":
		return []tableColumn{col("Name", "string", 0), col("Status", "string", 0), col("Roles", "string", 0),
				col("Age", "string", 0), col("Version", "string", 0), col("Internal-IP", "string", 1),
				col("External-IP", "string", 1), col("OS-Image", "string", 1), col("Kernel-Version", "string", 1),
				col("Container-Runtime", "string", 1)},
			func(o api.Object) []any {
				n := o.(*api.Node)
				status := "Unknown"
				for _, c := range n.Status.Conditions {
					if c.Type == api.NodeReady {
						status = map[api.ConditionStatus]string{api.ConditionTrue: "Ready", api.ConditionFalse: "NotReady"}[c.Status]
						if status == "" {
							status = "Unknown"
						}
					}
				}
				if n.Spec.Unschedulable {
					status += ",SchedulingDisabled"
				}
				info := n.Status.NodeInfo
				return []any{name(o), status, "<none>", age(o), info.KubeletVersion, nodeAddress(n, "InternalIP"),
					nodeAddress(n, "ExternalIP"), orUnknown(info.OSImage), orUnknown(info.KernelVersion),
					orUnknown(info.ContainerRuntimeVersion)}
			}
	case "Service":
		return []tableColumn{col("Name", "string", 0), col("Type", "string", 0), col("Cluster-IP", "string", 0),
				col("External-IP", "string", 0), col("Port(s)", "string", 0), col("Age", "string", 0), col("Selector", "string", 1)},
			func(o api.Object) []any {
				s := o.(*api.Service)
				var ports []string
				for _, p := range s.Spec.Ports {
					if p.NodePort != 0 {
						ports = append(ports, fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol))
					} else {
						ports = append(ports, fmt.Sprintf("%d/%s", p.Port, p.Protocol))
					}
				}
				return []any{name(o), string(s.Spec.Type), orNone(s.Spec.ClusterIP), serviceExternalIP(s),
					orNone(strings.Join(ports, ",")), age(o), labels.FormatLabels(s.Spec.Selector)}
			}
	case "Namespace":
		return []tableColumn{col("Name", "string", 0), col("Status", "string", 0), col("Age", "string", 0)},
			func(o api.Object) []any { return []any{name(o), o.(*api.Namespace).Status.Phase, age(o)} }
	case "Event":
		return eventColumns, func(o api.Object) []any { return eventCells(o.(*api.Event)) }
	}
	if cols, row, ok := storedPrinter(kind); ok {
		return cols, row
	}
	if cols, row, ok := workloadPrinter(kind); ok {
		return cols, row
	}
	if cols, row, ok := ownedPrinter(kind); ok {
		return cols, row
	}
	switch kind {
	case "EndpointSlice":
		return endpointSlicePrinter()
	case "Endpoints":
		return endpointsPrinter()
	}
	return []tableColumn{col("Name", "string", 0), col("Age", "string", 0)},
		func(o api.Object) []any { return []any{name(o), age(o)} }
}

func replicas(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func containersImages(cs []api.Container) (string, string) {
	var n, i []string
	for _, c := range cs {
		n, i = append(n, c.Name), append(i, c.Image)
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// nodeAddress is the node's first address of type t, as kubectl's wide
// node columns show it.
func nodeAddress(n *api.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// age renders the time since creation as kubectl does ("45s", "3m12s",
// "5h", "2d3h").
func age(o api.Object) string { return since(api.Meta(o).CreationTimestamp) }

// since is the time elapsed since ts, or "<unknown>" for an unset ts.
func since(ts api.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return humanDuration(time.Since(ts.Time))
}

func humanDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s < 0 {
		s = 0
	}
	m, h, days := s/60, s/3600, s/86400
	switch {
	case s < 120:
		return fmt.Sprintf("%ds", s)
	case m < 10:
		if s%60 == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%ds", m, s%60)
	case m < 180:
		return fmt.Sprintf("%dm", m)
	case h < 8:
		if m%60 == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m%60)
	case h < 48:
		return fmt.Sprintf("%dh", h)
	case days < 8:
		if h%24 == 0 {
			return fmt.Sprintf("%dd", days)
		}
		return fmt.Sprintf("%dd%dh", days, h%24)
	case days < 365*2:
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dy", days/365)
}

// eventColumns are kube-apiserver's event columns; the cells come in the
// same order, the priority 1 ones for -o wide.
var eventColumns = []tableColumn{col("Last Seen", "string", 0), col("Type", "string", 0), col("Reason", "string", 0),
	col("Object", "string", 0), col("Subobject", "string", 1), col("Source", "string", 1), col("Message", "string", 0),
	col("First Seen", "string", 1), col("Count", "string", 1), col("Name", "string", 1)}

// eventCells follows Kubernetes' printEvent: first seen is firstTimestamp,
// else eventTime; last seen is lastTimestamp, else first seen; a count of
// 0 (events recorded through the newer API) is 1. Unlike Kubernetes, an
// event with none of those times falls back to its creationTimestamp
// rather than "<unknown>".
func eventCells(e *api.Event) []any {
	first := e.FirstTimestamp
	if first.IsZero() && !e.EventTime.IsZero() {
		first = api.Time{Time: e.EventTime.Time}
	}
	if first.IsZero() {
		first = e.CreationTimestamp
	}
	last := e.LastTimestamp
	if last.IsZero() {
		last = first
	}
	count := int64(e.Count)
	if count == 0 {
		count = 1
	}
	target := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		target += "/" + e.InvolvedObject.Name
	}
	return []any{since(last), e.Type, e.Reason, target, e.InvolvedObject.FieldPath,
		eventSource(e), strings.TrimSpace(e.Message), since(first), count, e.Name}
}

// eventSource is "component, host", each part falling back to the
// reporting controller and instance of events recorded through the newer
// API; without a host it is the component alone.
func eventSource(e *api.Event) string {
	component, host := e.Source.Component, e.Source.Host
	if component == "" {
		component = e.ReportingController
	}
	if host == "" {
		host = e.ReportingInstance
	}
	if host == "" {
		return component
	}
	return component + ", " + host
}

// serviceExternalIP is the EXTERNAL-IP column as kubectl's printer fills
// it: a LoadBalancer's ingress points, "<pending>" until it has one (with
// no cloud provider, for ever), an ExternalName's name, else "<none>".
func serviceExternalIP(s *api.Service) string {
	switch s.Spec.Type {
	case api.ServiceTypeLoadBalancer:
		var out []string
		for _, in := range s.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				out = append(out, in.IP)
			} else if in.Hostname != "" {
				out = append(out, in.Hostname)
			}
		}
		if len(out) == 0 {
			return "<pending>"
		}
		return strings.Join(out, ",")
	case api.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<none>"
}
