// Package tasks is an operator written from outside (see examples/foreign) with two controllers: a Task runs as a
// Job (watched as metadata only, read through the API reader); a notifier,
// woken through a channel source and by Tasks, keeps a summary ConfigMap
// per Task, reading Tasks as unstructured v1alpha1 and writing with typed
// server-side apply.
package tasks

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	taskv1 "github.com/converge-dev/converge/examples/foreign/tasks/api/v1"
)

const (
	TaskLabel  = "batch.probe.example.com/task"
	imageAnnot = "batch.probe.example.com/image"
	pollPeriod = 30 * time.Second
	summaryMgr = "task-notifier"
)

// BugGenerateName seeds a bug: the Job gets a generated name, and the
// reconciler decides whether one exists from a cached List: a pass that
// runs before the cache has the Job creates a second one.
var BugGenerateName = false

// ManualSelector gives the Job its own selector (workaround: the server's
// controller-uid labels are not masked by the differential).
var ManualSelector = false

type TaskReconciler struct {
	client.Client
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Notify    chan<- event.GenericEvent
}

func (r *TaskReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var task taskv1.Task
	if err := r.Get(ctx, req.NamespacedName, &task); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !task.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	var job batchv1.Job
	var jobName string
	if BugGenerateName {
		var jobs metav1.PartialObjectMetadataList
		jobs.SetGroupVersionKind(batchv1.SchemeGroupVersion.WithKind("JobList"))
		if err := r.List(ctx, &jobs, client.InNamespace(task.Namespace), client.MatchingLabels{TaskLabel: task.Name}); err != nil {
			return ctrl.Result{}, err
		}
		if len(jobs.Items) == 0 {
			j := r.jobFor(&task)
			j.Name, j.GenerateName = "", task.Name+"-"
			if err := controllerutil.SetControllerReference(&task, j, r.Scheme); err != nil {
				return ctrl.Result{}, err
			}
			if err := r.Create(ctx, j); err != nil {
				return ctrl.Result{}, err
			}
			jobName = j.Name
			job = *j
		} else {
			jobName = jobs.Items[0].Name
			if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: task.Namespace, Name: jobName}, &job); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
		}
	} else {
		jobName = task.Name + "-run"
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: task.Namespace, Name: jobName}, &job)
		switch {
		case apierrors.IsNotFound(err):
			j := r.jobFor(&task)
			if err := controllerutil.SetControllerReference(&task, j, r.Scheme); err != nil {
				return ctrl.Result{}, err
			}
			if err := r.Create(ctx, j); err != nil {
				return ctrl.Result{}, err
			}
			job = *j
		case err != nil:
			return ctrl.Result{}, err
		case !job.DeletionTimestamp.IsZero():
			return ctrl.Result{RequeueAfter: time.Second}, nil
		case job.Annotations[imageAnnot] != templateKey(&task):
			// The template is immutable: replace the Job.
			if err := r.Delete(ctx, &job, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{RequeueAfter: time.Second}, nil
		}
	}

	if job.Spec.Suspend == nil || *job.Spec.Suspend != task.Spec.Suspend ||
		job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != task.Spec.BackoffLimit {
		patch := client.MergeFrom(job.DeepCopy())
		s, b := task.Spec.Suspend, task.Spec.BackoffLimit
		job.Spec.Suspend, job.Spec.BackoffLimit = &s, &b
		if err := r.Patch(ctx, &job, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}

	phase := "Running"
	switch {
	case task.Spec.Suspend:
		phase = "Suspended"
	case job.Status.Succeeded > 0:
		phase = "Succeeded"
	case job.Status.Failed > task.Spec.BackoffLimit:
		phase = "Failed"
	}
	st := taskv1.TaskStatus{Phase: phase, JobName: jobName, ObservedGeneration: task.Generation}
	if st != task.Status {
		task.Status = st
		if err := r.Status().Update(ctx, &task); err != nil {
			return ctrl.Result{}, err
		}
		select {
		case r.Notify <- event.GenericEvent{Object: &task}:
		default:
		}
	}
	if phase == "Running" {
		return ctrl.Result{RequeueAfter: pollPeriod}, nil // poll the Job's progress
	}
	return ctrl.Result{}, nil
}

func (r *TaskReconciler) jobFor(task *taskv1.Task) *batchv1.Job {
	backoff, suspend := task.Spec.BackoffLimit, task.Spec.Suspend
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: task.Name + "-run", Namespace: task.Namespace,
			Labels: map[string]string{TaskLabel: task.Name}, Annotations: map[string]string{imageAnnot: templateKey(task)}},
		Spec: batchv1.JobSpec{
			BackoffLimit: &backoff,
			Suspend:      &suspend,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{TaskLabel: task.Name}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "task", Image: task.Spec.Image, Args: task.Spec.Args}},
				},
			},
		},
	}
	if ManualSelector {
		t := true
		j.Spec.ManualSelector = &t
		j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{TaskLabel: task.Name}}
	}
	return j
}

func (r *TaskReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&taskv1.Task{}).
		Owns(&batchv1.Job{}, builder.OnlyMetadata).
		Named("task").
		Complete(r)
}

// Notifier keeps the ConfigMap <task>-summary.
type Notifier struct {
	client.Client
}

var alphaGVK = schema.GroupVersionKind{Group: "batch.probe.example.com", Version: "v1alpha1", Kind: "Task"}

func (n *Notifier) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(alphaGVK)
	if err := n.Get(ctx, req.NamespacedName, u); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if u.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, nil
	}
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	image, _, _ := unstructured.NestedString(u.Object, "spec", "image")
	want := map[string]string{"phase": phase, "image": image}
	name := u.GetName() + "-summary"

	var cur corev1.ConfigMap
	if err := n.Get(ctx, client.ObjectKey{Namespace: u.GetNamespace(), Name: name}, &cur); err == nil {
		if fmt.Sprint(cur.Data) == fmt.Sprint(want) && len(cur.OwnerReferences) == 1 && cur.OwnerReferences[0].UID == u.GetUID() {
			return ctrl.Result{}, nil
		}
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	ac := corev1ac.ConfigMap(name, u.GetNamespace()).
		WithLabels(map[string]string{TaskLabel: u.GetName()}).
		WithData(want).
		WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion(alphaGVK.GroupVersion().String()).WithKind("Task").
			WithName(u.GetName()).WithUID(u.GetUID()).WithController(true).WithBlockOwnerDeletion(true))
	return ctrl.Result{}, n.Apply(ctx, ac, client.FieldOwner(summaryMgr), client.ForceOwnership)
}

func (n *Notifier) SetupWithManager(mgr ctrl.Manager, events <-chan event.GenericEvent) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("task-notifier").
		Watches(&taskv1.Task{}, &handler.EnqueueRequestForObject{}).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &taskv1.Task{}, handler.OnlyControllerOwner())).
		WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{})).
		Complete(n)
}

// Setup wires both controllers, as cmd/main.go would.
func Setup(mgr ctrl.Manager) error {
	ch := make(chan event.GenericEvent, 16)
	if err := (&TaskReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(), Notify: ch}).SetupWithManager(mgr); err != nil {
		return err
	}
	return (&Notifier{Client: mgr.GetClient()}).SetupWithManager(mgr, ch)
}

// templateKey names what the Job's immutable template is made of.
func templateKey(t *taskv1.Task) string { return fmt.Sprintf("%s %q", t.Spec.Image, t.Spec.Args) }
