package clients

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
)

// TestMetadataOnlyInformersAndCaches: client-go's metadata informer and
// controller-runtime's metadata-only cache (what builder.OnlyMetadata
// uses) ask for PartialObjectMetadata. They sync, by streaming, and then
// follow changes: their watches decode every event as
// PartialObjectMetadata, which has no fallback for a server that sends
// whole objects.
func TestMetadataOnlyInformersAndCaches(t *testing.T) {
	c := start(t)
	if _, err := c.cs.AppsV1().Deployments("default").Create(ctx(t), deployment("meta", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mc, err := metadata.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := metadatainformer.NewSharedInformerFactory(mc, 0)
	inf := f.ForResource(appsv1.SchemeGroupVersion.WithResource("deployments")).Informer()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); f.Shutdown() })
	before := c.watchLists.Load()
	f.Start(stop)
	synced := make(chan bool, 1)
	go func() { synced <- toolscache.WaitForCacheSync(stop, inf.HasSynced) }()
	select {
	case ok := <-synced:
		if !ok {
			t.Fatal("the metadata informer did not sync")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the metadata informer not synced after 30s")
	}
	if c.watchLists.Load() == before {
		t.Fatal("the metadata informer synced by a LIST, not by streaming")
	}

	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cache, err := crcache.New(c.cfg, crcache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = cache.Start(ctx(t)) }()
	if !cache.WaitForCacheSync(ctx(t)) {
		t.Fatal("the controller-runtime cache did not start")
	}
	// The first read makes the metadata informer and waits for its sync.
	var list metav1.PartialObjectMetadataList
	list.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("DeploymentList"))
	if err := cache.List(ctx(t), &list); err != nil || len(list.Items) != 1 || list.Items[0].Name != "meta" {
		t.Fatalf("controller-runtime metadata cache list: %+v %v", list.Items, err)
	}

	// A change reaches both through their watches.
	if _, err := c.cs.AppsV1().Deployments("default").Patch(ctx(t), "meta", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"tier":"front"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the metadata informer to see the new label", func() bool {
		o, ok, _ := inf.GetStore().GetByKey("default/meta")
		m, _ := o.(*metav1.PartialObjectMetadata)
		return ok && m != nil && m.Labels["tier"] == "front"
	})
	eventually(t, "the controller-runtime metadata cache to see the new label", func() bool {
		var m metav1.PartialObjectMetadata
		m.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
		return cache.Get(ctx(t), types.NamespacedName{Namespace: "default", Name: "meta"}, &m) == nil && m.Labels["tier"] == "front"
	})
}
