package traces

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
)

//go:embed timeline/timeline.html
var timelineHTML string

//go:embed timeline/timeline.css
var timelineCSS string

//go:embed timeline/timeline.js
var timelineJS string

// StoreLane is the name of the lane that stands for the apiserver and etcd.
const StoreLane = "store"

// lane is one swim lane of the timeline.
type lane struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // user, fault, store, controller, scheduler, kubelet, proxy, other
}

// timelineData is embedded in the page as JSON.
type timelineData struct {
	Title  string       `json:"title"`
	Lanes  []lane       `json:"lanes"`
	Lane   []int        `json:"lane"` // lane index of each event
	Events []TraceEvent `json:"events"`
}

// WriteHTML writes a self-contained HTML page (inline CSS, JS and data; no
// network) that draws events as a swim-lane timeline: one lane per actor and
// a store lane, time flowing down, writes as arrows into the store and
// deliveries as arrows out of it. Only the rows in view are in the DOM, so
// traces of many thousands of events stay responsive. Hovering shows an
// event, clicking pins its JSON, a filter box narrows by actor or key, and
// "page.html#42" opens with event 42 pinned. Once drawn, <body> carries
// data-lanes, data-events, data-drawn (rows in the DOM) and
// data-rendered="true" for tests.
func WriteHTML(w io.Writer, events []TraceEvent, title string) error {
	lanes, index := timelineLanes(events)
	data := timelineData{Title: title, Lanes: lanes, Lane: index, Events: events}
	if data.Events == nil {
		data.Events = []TraceEvent{}
	}
	// json.Marshal escapes <, > and &, so the data cannot end its <script>.
	payload, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("traces: encode timeline: %w", err)
	}
	page := strings.NewReplacer(
		"{{TITLE}}", html.EscapeString(title),
		"/*{{CSS}}*/", timelineCSS,
		"/*{{JS}}*/", timelineJS,
		"{{DATA}}", string(payload),
	).Replace(timelineHTML)
	if _, err := io.WriteString(w, page); err != nil {
		return fmt.Errorf("traces: write timeline: %w", err)
	}
	return nil
}

// laneRank orders lanes as the request flows in the seed documents: the user
// and faults, the store (apiserver and etcd), controllers, the scheduler,
// kubelets, kube-proxies.
var laneRank = map[string]int{
	"user": 0, "fault": 1, "store": 2, "controller": 3, "scheduler": 4,
	"kubelet": 5, "proxy": 6, "other": 7,
}

func laneKind(actor string) string {
	switch {
	case actor == "user", actor == "fault", actor == StoreLane, actor == "scheduler":
		return actor
	case strings.HasPrefix(actor, "kubelet"):
		return "kubelet"
	case strings.HasPrefix(actor, "kube-proxy"), strings.HasPrefix(actor, "proxy"):
		return "proxy"
	case strings.Contains(actor, "controller"), actor == "garbage-collector", strings.HasPrefix(actor, "node-lifecycle"):
		return "controller"
	}
	return "other"
}

// timelineLanes returns the lanes in display order and each event's lane.
// Controllers and unknown actors keep their order of first appearance, which
// follows the flow; per-node lanes sort by name.
func timelineLanes(events []TraceEvent) ([]lane, []int) {
	first := map[string]int{StoreLane: -1}
	for i, e := range events {
		if _, ok := first[e.Actor]; !ok {
			first[e.Actor] = i
		}
	}
	lanes := make([]lane, 0, len(first))
	for name := range first {
		lanes = append(lanes, lane{Name: name, Kind: laneKind(name)})
	}
	slices.SortFunc(lanes, func(x, y lane) int {
		if d := laneRank[x.Kind] - laneRank[y.Kind]; d != 0 {
			return d
		}
		if x.Kind == "kubelet" || x.Kind == "proxy" {
			return strings.Compare(x.Name, y.Name)
		}
		return first[x.Name] - first[y.Name]
	})
	pos := make(map[string]int, len(lanes))
	for i, l := range lanes {
		pos[l.Name] = i
	}
	index := make([]int, len(events))
	for i, e := range events {
		index[i] = pos[e.Actor]
	}
	return lanes, index
}
