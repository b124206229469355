package containerd

import (
	"strconv"
	"time"

	"github.com/containerd/containerd/v2/core/containers"

	"github.com/converge-dev/converge/impl/container"
)

// Labels stored on every container, so a restarted kubelet can rebuild each
// ContainerStatus from the daemon alone.
const (
	labelNode         = "converge.dev/node"
	labelPodNamespace = "converge.dev/pod-namespace"
	labelPodName      = "converge.dev/pod-name"
	labelPodUID       = "converge.dev/pod-uid"
	labelName         = "converge.dev/container-name"
	labelAttempt      = "converge.dev/attempt"
	labelPodIP        = "converge.dev/pod-ip"
	labelStartedAt    = "converge.dev/started-at"
	// Written by Stop just before it deletes the task that held them.
	labelExitCode   = "converge.dev/exit-code"
	labelFinishedAt = "converge.dev/finished-at"
)

func labelsOf(s container.ContainerSpec) map[string]string {
	return map[string]string{
		labelNode:         s.Node,
		labelPodNamespace: s.PodNamespace,
		labelPodName:      s.PodName,
		labelPodUID:       s.PodUID,
		labelName:         s.Name,
		labelAttempt:      strconv.Itoa(s.Attempt),
		labelPodIP:        s.PodIP,
	}
}

// identityOf reads the identity fields and start time back from a record.
func identityOf(info containers.Container) container.ContainerStatus {
	l := info.Labels
	attempt, _ := strconv.Atoi(l[labelAttempt])
	return container.ContainerStatus{
		ID:           info.ID,
		Node:         l[labelNode],
		PodNamespace: l[labelPodNamespace],
		PodName:      l[labelPodName],
		PodUID:       l[labelPodUID],
		Name:         l[labelName],
		PodIP:        l[labelPodIP],
		Image:        info.Image,
		Attempt:      attempt,
		StartedAt:    parseTime(l[labelStartedAt]),
	}
}

func exitLabels(code int, at time.Time) map[string]string {
	return map[string]string{labelExitCode: strconv.Itoa(code), labelFinishedAt: formatTime(at)}
}

func exitOf(l map[string]string) (code int, at time.Time, ok bool) {
	code, err := strconv.Atoi(l[labelExitCode])
	if err != nil {
		return 0, time.Time{}, false
	}
	return code, parseTime(l[labelFinishedAt]), true
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
