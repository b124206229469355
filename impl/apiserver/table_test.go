package apiserver

import (
	"encoding/json"
	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
)

const tableAccept = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

type wireTable struct {
	Kind, APIVersion string
	Metadata         struct{ ResourceVersion string }
	Columns          []tableColumn `json:"columnDefinitions"`
	Rows             []struct {
		Cells  []any
		Object struct {
			Kind     string
			Metadata struct{ Name string }
		}
	}
}

func TestTablesForKubectlGet(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", podPath, podJSON("p", map[string]string{"app": "x"}))
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))

	var tb wireTable
	e.must(200, "GET", podPath, "", tableAccept).into(t, &tb)
	var names []string
	for _, c := range tb.Columns {
		names = append(names, c.Name)
	}
	want := []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"}
	if tb.Kind != "Table" || tb.APIVersion != "meta.k8s.io/v1" || tb.Metadata.ResourceVersion == "" || len(names) != len(want) {
		t.Fatalf("table: %+v", tb)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("columns %v, want %v", names, want)
		}
	}
	if len(tb.Rows) != 1 || tb.Rows[0].Cells[0] != "p" || tb.Rows[0].Cells[1] != "0/1" || tb.Rows[0].Cells[2] != "Pending" ||
		tb.Rows[0].Object.Kind != "PartialObjectMetadata" || tb.Rows[0].Object.Metadata.Name != "p" {
		t.Fatalf("rows: %+v", tb.Rows)
	}

	e.must(200, "GET", webPath+"?includeObject=Object", "", tableAccept).into(t, &tb)
	if len(tb.Rows) != 1 || tb.Rows[0].Cells[1] != "0/2" || tb.Rows[0].Cells[7] != "app=web" || tb.Rows[0].Object.Kind != "Deployment" {
		t.Fatalf("deployment row: %+v", tb.Rows)
	}
	// Without the Table Accept header, objects are plain.
	var plain struct{ Kind string }
	e.must(200, "GET", webPath, "").into(t, &plain)
	if plain.Kind != "Deployment" {
		t.Fatalf("plain get: %s", plain.Kind)
	}

	// A Service's PORT(S) shows its node port, as upstream's does.
	svcPath := "/api/v1/namespaces/default/services"
	e.must(201, "POST", svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"np"},"spec":{"type":"NodePort","ports":[{"port":80}]}}`)
	e.must(200, "GET", svcPath+"/np", "", tableAccept).into(t, &tb)
	if len(tb.Rows) != 1 || tb.Rows[0].Cells[3] != "<none>" || tb.Rows[0].Cells[4] != "80:30000/TCP" {
		t.Fatalf("service row: %+v", tb.Rows)
	}
	e.must(201, "POST", svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","ports":[{"port":443}]}}`)
	e.must(200, "GET", svcPath+"/lb", "", tableAccept).into(t, &tb)
	if len(tb.Rows) != 1 || tb.Rows[0].Cells[3] != "<pending>" || tb.Rows[0].Cells[4] != "443:30001/TCP" {
		t.Fatalf("load balancer row: %+v", tb.Rows)
	}

	// Watch events carry one-row tables.
	w := e.watchWith(podPath+"?watch=true", tableAccept)
	ev := nextTableEvent(t, w)
	if ev.Type != "ADDED" || ev.Object.Kind != "Table" || len(ev.Object.Rows) != 1 || ev.Object.Rows[0].Cells[0] != "p" {
		t.Fatalf("table watch event: %s", w.sc.Bytes())
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Second:              "5s",
		150 * time.Second:            "2m30s",
		40 * time.Minute:             "40m",
		5*time.Hour + 3*time.Minute:  "5h3m",
		30 * time.Hour:               "30h",
		3*24*time.Hour + 2*time.Hour: "3d2h",
		100 * 24 * time.Hour:         "100d",
		3 * 365 * 24 * time.Hour:     "3y",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

const eventPath = "/api/v1/namespaces/default/events"

func eventJSON(t *testing.T, ev map[string]any) string {
	t.Helper()
	ev["apiVersion"], ev["kind"] = "v1", "Event"
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ago(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }

// kubectl get events (-o wide) prints kube-apiserver's event columns;
// every column is sent and kubectl hides the priority 1 ones.
func TestEventTable(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", eventPath, eventJSON(t, map[string]any{
		"metadata":       map[string]any{"name": "web-0.1"},
		"involvedObject": map[string]any{"kind": "Pod", "namespace": "default", "name": "web-0", "fieldPath": "spec.containers{web}"},
		"reason":         "BackOff", "message": "Back-off restarting failed container\n", "type": "Warning", "count": 3,
		"source":         map[string]any{"component": "kubelet", "host": "node-1"},
		"firstTimestamp": ago(48 * time.Hour), "lastTimestamp": ago(5 * time.Hour),
	}))
	// Recorded through the newer API: eventTime, reporting fields, no count.
	e.must(201, "POST", eventPath, eventJSON(t, map[string]any{
		"metadata":       map[string]any{"name": "web-0.2"},
		"involvedObject": map[string]any{"kind": "Pod", "namespace": "default", "name": "web-0"},
		"reason":         "Scheduled", "message": "Successfully assigned default/web-0 to node-1", "type": "Normal",
		"eventTime": time.Now().Add(-10 * time.Minute).UTC().Format(metav1.RFC3339Micro), "action": "Binding",
		"reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-1",
	}))
	e.must(201, "POST", eventPath, eventJSON(t, map[string]any{
		"metadata":       map[string]any{"name": "node-1.3"},
		"involvedObject": map[string]any{"kind": "Node", "name": "node-1", "uid": "node-1"},
		"reason":         "NodeReady", "type": "Normal", "source": map[string]any{"component": "kubelet"},
	}))

	var tb wireTable
	e.must(200, "GET", eventPath, "", tableAccept).into(t, &tb)
	var cols []string
	for _, c := range tb.Columns {
		cols = append(cols, fmt.Sprintf("%s/%d", c.Name, c.Priority))
	}
	if want := "Last Seen/0 Type/0 Reason/0 Object/0 Subobject/1 Source/1 Message/0 First Seen/1 Count/1 Name/1"; strings.Join(cols, " ") != want {
		t.Fatalf("columns %v, want %s", cols, want)
	}
	rows := map[string]string{}
	for _, r := range tb.Rows {
		if len(r.Cells) != len(cols) {
			t.Fatalf("row %v has %d cells for %d columns", r.Cells, len(r.Cells), len(cols))
		}
		cells := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			cells[i] = fmt.Sprint(c)
		}
		rows[r.Object.Metadata.Name] = strings.Join(cells, "|")
	}
	for name, want := range map[string]string{
		"web-0.1": "5h|Warning|BackOff|pod/web-0|spec.containers{web}|kubelet, node-1|Back-off restarting failed container|2d|3|web-0.1",
		"web-0.2": "10m|Normal|Scheduled|pod/web-0||default-scheduler, default-scheduler-1|Successfully assigned default/web-0 to node-1|10m|1|web-0.2",
	} {
		if got := rows[name]; got != want {
			t.Errorf("row %s:\n got %s\nwant %s", name, got, want)
		}
	}
	// No timestamps at all: both times are the event's age.
	if got := rows["node-1.3"]; !strings.Contains(got, "|Normal|NodeReady|node/node-1||kubelet||") || strings.Contains(got, "<unknown>") {
		t.Errorf("node event row %s", got)
	}

	// kubectl get events --field-selector type=Warning -w: the watch filters
	// as the list does, the initial state and later changes alike.
	w := e.watchWith(eventPath+"?watch=true&fieldSelector="+url.QueryEscape("type=Warning"), tableAccept)
	e.must(201, "POST", eventPath, eventJSON(t, map[string]any{
		"metadata":       map[string]any{"name": "web-0.4"},
		"involvedObject": map[string]any{"kind": "Pod", "namespace": "default", "name": "web-0"},
		"reason":         "Pulled", "type": "Normal",
	}))
	e.must(201, "POST", eventPath, eventJSON(t, map[string]any{
		"metadata":       map[string]any{"name": "web-0.5"},
		"involvedObject": map[string]any{"kind": "Pod", "namespace": "default", "name": "web-0"},
		"reason":         "Failed", "type": "Warning", "message": "ErrImagePull",
	}))
	for _, want := range []string{"web-0.1", "web-0.5"} {
		ev := nextTableEvent(t, w)
		if ev.Type != "ADDED" || len(ev.Object.Rows) != 1 || ev.Object.Rows[0].Cells[9] != want {
			t.Fatalf("watch event %s, want ADDED %s", w.sc.Bytes(), want)
		}
	}
	e.must(400, "GET", eventPath+"?watch=true&fieldSelector="+url.QueryEscape("involvedObject.color=red"), "")
}

func TestEventCellRules(t *testing.T) {
	at := api.NewTime(time.Now().Add(-30 * time.Minute))
	ev := &api.Event{ObjectMeta: api.ObjectMeta{Name: "x", CreationTimestamp: api.NewTime(time.Now().Add(-3 * time.Hour))},
		InvolvedObject: api.ObjectReference{Kind: "ReplicaSet"}, Message: "  spaced  "}
	cells := eventCells(ev)
	// No times at all: creationTimestamp; a kind without a name stands alone.
	if cells[0] != "3h" || cells[7] != "3h" || cells[3] != "replicaset" || cells[6] != "spaced" || cells[8] != int64(1) || cells[5] != "" {
		t.Fatalf("cells %q", cells)
	}
	mt := api.NewMicroTime(at.Time)
	ev.EventTime = mt
	ev.ReportingController = "c"
	if cells = eventCells(ev); cells[0] != "30m" || cells[7] != "30m" || cells[5] != "c" {
		t.Fatalf("eventTime cells %q", cells)
	}
	ev.FirstTimestamp = api.NewTime(time.Now().Add(-50 * time.Minute))
	ev.Source.Host = "h"
	if cells = eventCells(ev); cells[0] != "50m" || cells[7] != "50m" || cells[5] != "c, h" {
		t.Fatalf("firstTimestamp cells %q", cells)
	}
}

type tableEvent struct {
	Type   string
	Object wireTable
}

// nextTableEvent reads the next watch event of a watch asked for tables.
func nextTableEvent(t *testing.T, w *watchStream) tableEvent {
	t.Helper()
	var ev tableEvent
	if !w.sc.Scan() {
		t.Fatal("watch ended")
	}
	if err := json.Unmarshal(w.sc.Bytes(), &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}
