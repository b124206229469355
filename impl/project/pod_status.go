package project

import (
	"fmt"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// The container status of an unhappy world (model/world.go), in the
// kubelet's words (k8s.io/kubernetes pkg/kubelet/images, kuberuntime and
// status): a waiting state's reason and message, the last attempt's
// termination, and why the pod is not ready. Only the reasons and exit
// codes are the model's; messages are derived from them.

// waitingOf reads the model's waiting reason and last termination.
func waitingOf(cs *api.ContainerStatus) (waiting, lastReason string, lastExit int) {
	if w := cs.State.Waiting; w != nil {
		waiting = w.Reason
	}
	if t := cs.LastTerminationState.Terminated; t != nil {
		lastReason, lastExit = t.Reason, int(t.ExitCode)
	}
	return waiting, lastReason, lastExit
}

// applyWaiting writes the waiting state and the last termination the model
// has, keeping a state that already says so (its message and times).
func applyWaiting(p *api.Pod, cs *api.ContainerStatus, o *model.Pod) {
	if o.Waiting != "" && (cs.State.Waiting == nil || cs.State.Waiting.Reason != o.Waiting) {
		cs.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: o.Waiting, Message: waitingMessage(p, cs.Name, o)}}
		cs.Started = ptr(false)
	}
	w, reason, code := waitingOf(cs)
	if o.Waiting == "" && w != "" && o.Phase != model.PhaseRunning {
		cs.State = api.ContainerState{} // the kubelet has not said since
	}
	if reason != o.LastReason || code != o.LastExitCode {
		cs.LastTerminationState = api.ContainerState{}
		if o.LastReason != "" {
			cs.LastTerminationState.Terminated = &api.ContainerStateTerminated{Reason: o.LastReason, ExitCode: i32(o.LastExitCode)}
		}
	}
}

// waitingMessage is the kubelet's message for a waiting reason.
func waitingMessage(p *api.Pod, container string, o *model.Pod) string {
	switch o.Waiting {
	case model.WaitingErrImagePull:
		return fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: not found", o.Image)
	case model.WaitingImagePullBackOff:
		return fmt.Sprintf("Back-off pulling image %q", o.Image)
	case model.WaitingInvalidImageName:
		return fmt.Sprintf("Failed to apply default image tag %q: %s", o.Image, model.ImageNameError(o.Image))
	case model.WaitingCrashLoopBackOff:
		return fmt.Sprintf("back-off 10s restarting failed container=%s pod=%s_%s(%s)", container, p.Name, p.Namespace, p.UID)
	}
	return ""
}

// explainNotReady gives the Ready and ContainersReady conditions that have
// just turned False the kubelet's reason and message.
func explainNotReady(p *api.Pod, o *model.Pod) {
	name := firstContainer(&p.Spec, o.Image).Name
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == api.PodReady || c.Type == api.ContainersReady {
			c.Reason, c.Message = "ContainersNotReady", "containers with unready status: ["+name+"]"
		}
	}
}
