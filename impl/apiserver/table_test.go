package apiserver

import (
	"encoding/json"
	"testing"
	"time"
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

	// Watch events carry one-row tables.
	w := e.watchWith(podPath+"?watch=true", tableAccept)
	var ev struct {
		Type   string
		Object wireTable
	}
	if !w.sc.Scan() {
		t.Fatal("watch ended")
	}
	if err := json.Unmarshal(w.sc.Bytes(), &ev); err != nil {
		t.Fatal(err)
	}
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
