package api

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// Length limits Kubernetes puts on events that carry an eventTime (the
// events.k8s.io-style fields); legacy events are not bounded.
const (
	eventReportingInstanceMax = 128
	eventActionMax            = 128
	eventReasonMax            = 128
	eventMessageMax           = 1024
)

var eventTypes = []string{EventTypeNormal, EventTypeWarning}

// eventNamespaceSystem is, with DefaultNamespace, where Kubernetes accepts
// new-style events about cluster-scoped objects (nodes).
const eventNamespaceSystem = "kube-system"

// validateEvent checks what core/v1 checks on an Event beyond its
// metadata. As in Kubernetes, an event with an eventTime is a "new" event
// and must name its reporter, action and reason; a legacy one (no
// eventTime) must only agree with its object on the namespace.
func validateEvent(e *errs, ev *Event) {
	ns, objNS := ev.Namespace, ev.InvolvedObject.Namespace
	isNew := !ev.EventTime.IsZero()
	switch {
	case objNS != "":
		if ns != objNS {
			e.invalid("involvedObject.namespace", objNS, "does not match event.namespace")
		}
	// An event about a cluster-scoped object (a node) lives in "default",
	// or, if new, also in "kube-system".
	case ns != DefaultNamespace && !(isNew && ns == eventNamespaceSystem):
		e.invalid("involvedObject.namespace", objNS, "does not match event.namespace")
	}
	if isNew {
		if ev.ReportingController == "" {
			e.required("reportingComponent", "")
		} else {
			e.invalidEach("reportingComponent", ev.ReportingController, content.IsLabelKey(ev.ReportingController))
		}
		requiredBounded(e, "reportingInstance", ev.ReportingInstance, eventReportingInstanceMax)
		requiredBounded(e, "action", ev.Action, eventActionMax)
		requiredBounded(e, "reason", ev.Reason, eventReasonMax)
		if len(ev.Message) > eventMessageMax {
			e.invalid("message", "", atMostChars(eventMessageMax))
		}
	}
	if ev.Type != "" && ev.Type != EventTypeNormal && ev.Type != EventTypeWarning {
		notSupported(e, "type", ev.Type, eventTypes)
	}
}

// requiredBounded is Kubernetes' check for the reporting fields: present,
// and no longer than limit. Like Kubernetes it omits the value, which may
// be long.
func requiredBounded(e *errs, p fieldPath, v string, limit int) {
	if v == "" {
		e.required(p, "")
	}
	if len(v) > limit {
		e.invalid(p, "", atMostChars(limit))
	}
}

func atMostChars(n int) string { return fmt.Sprintf("can have at most %d characters", n) }
