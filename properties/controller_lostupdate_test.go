package properties_test

import (
	"context"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties"
)

// How an annotator sends its update after building it from its cache.
type annotatorSend int

const (
	sendCached      annotatorSend = iota // the cached resourceVersion; a 409 requeues (correct)
	stampFresh                           // the live object's resourceVersion on the stale copy
	resendNoVersion                      // on a 409, the stale copy again with no resourceVersion
	fromLive                             // a copy of the live object, read afresh (correct)
)

// annotator notes each Deployment's image in an annotation, writing a
// copy of its cached Deployment: the users scale, set images and add
// finalizers on the same objects, and the deployment controller writes
// its revision annotation.
type annotator struct {
	env  properties.ControllerEnv
	send annotatorSend
}

const imageAnnotation = "converge.dev/image"

func (a *annotator) Reconcile(ctx context.Context, req properties.Request) (properties.Result, error) {
	obj, ok := a.env.Cache(model.KindDeployment).Get(req.Namespace, req.Name)
	if !ok {
		return properties.Result{}, nil
	}
	if a.send == fromLive {
		live, err := a.env.Client.Get(ctx, "deployments", req.Namespace, req.Name)
		if err != nil {
			return properties.Result{}, ignoreNotFound(err)
		}
		obj = live
	}
	d := obj.(*api.Deployment).DeepCopy()
	if len(d.Spec.Template.Spec.Containers) == 0 || d.DeletionTimestamp != nil {
		return properties.Result{}, nil
	}
	image := d.Spec.Template.Spec.Containers[0].Image
	if d.Annotations[imageAnnotation] == image {
		return properties.Result{}, nil
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[imageAnnotation] = image
	if a.send == stampFresh {
		live, err := a.env.Client.Get(ctx, "deployments", d.Namespace, d.Name)
		if err != nil {
			return properties.Result{}, ignoreNotFound(err)
		}
		d.ResourceVersion = api.Meta(live).ResourceVersion
	}
	_, err := a.env.Client.Update(ctx, d)
	if api.IsConflict(err) && a.send == resendNoVersion {
		d.ResourceVersion = ""
		_, err = a.env.Client.Update(ctx, d)
	}
	if api.IsConflict(err) {
		return properties.Result{Requeue: true}, nil
	}
	return properties.Result{}, ignoreNotFound(err)
}

func ignoreNotFound(err error) error {
	if properties.IsNotFound(err) {
		return nil
	}
	return err
}

func annotatorSpec(send annotatorSend) properties.ControllerSpec {
	return properties.ControllerSpec{Name: "image-annotator", Watches: []model.Kind{model.KindDeployment},
		New: func(env properties.ControllerEnv) properties.Reconciler { return &annotator{env: env, send: send} }}
}

// expectLostUpdate runs the annotator beside the built-in components; it
// must fail with a lost update.
func expectLostUpdate(t *testing.T, send annotatorSend) {
	t.Helper()
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "100", "rapid.seed": "1", "rapid.nofailfile": "true", "rapid.shrinktime": "5s"})()
	rep := properties.NewReport(t.Name())
	properties.CheckControllerTB(rep, t, annotatorSpec(send), properties.ImplOptions{})
	if !rep.Failed() {
		t.Fatal("the annotator's lost updates passed 100 checks")
	}
	if !strings.Contains(rep.Text(), "lost update: image-annotator's update of ") {
		t.Fatalf("the annotator failed, but not with a lost update:\n%s", rep.Text())
	}
	t.Logf("caught: %s", strings.SplitN(rep.Text(), "\n", 2)[0])
}

// TestLostUpdateCatchesAFreshVersionOnAStaleCopy: a full update of the
// cached copy stamped with the live resourceVersion reverts a user's
// scale, image or finalizer, or the deployment controller's annotation.
func TestLostUpdateCatchesAFreshVersionOnAStaleCopy(t *testing.T) {
	expectLostUpdate(t, stampFresh)
}

// TestLostUpdateCatchesAResendAfterConflict: sending the stale copy
// again without a resourceVersion after a 409 reverts them too.
func TestLostUpdateCatchesAResendAfterConflict(t *testing.T) {
	expectLostUpdate(t, resendNoVersion)
}

// TestLostUpdatePassesARequeueOnConflict: the annotator that requeues on
// a 409 and rebuilds from its cache loses nothing.
func TestLostUpdatePassesARequeueOnConflict(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "50", "rapid.seed": "1"})()
	properties.CheckController(t, annotatorSpec(sendCached), properties.ImplOptions{})
}

// TestLostUpdatePassesAnUpdateFromALiveRead: an update built from a live
// read keeps what changed since the cache's copy (the exemption for a
// write whose view held the change); the stale copies above are still
// caught.
func TestLostUpdatePassesAnUpdateFromALiveRead(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "30", "rapid.seed": "1"})()
	properties.CheckController(t, annotatorSpec(fromLive), properties.ImplOptions{})
}
