// Command informer is an operator written with client-go's informers and
// workqueue alone, without controller-runtime, in the shape of
// kubernetes/sample-controller: a Greeting (greetings.demo.converge.dev)
// owns a ConfigMap <name>-greeting whose data.message is the Greeting's
// spec.message, and status.observedGeneration says which spec it shows.
// converge checks it as its own process (informer_test.go):
//
//	go build -o bin/informer ./examples/informer
//	converge check operator --crds examples/informer/config/crd/bases -- ./bin/informer
//
// --bug seeds a bug, for the test that proves the check catches it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"slices"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

// greetings is the custom resource the operator reconciles.
var greetings = schema.GroupVersionResource{Group: "demo.converge.dev", Version: "v1", Resource: "greetings"}

// Bugs are the bugs --bug can seed.
var Bugs = []string{
	// no-owner-reference: the ConfigMap is made without an
	// ownerReference, so the garbage collector never removes it and it
	// outlives its Greeting (pravega/zookeeper-operator#42's class).
	"no-owner-reference",
}

func main() {
	bug := flag.String("bug", "", fmt.Sprintf("seed a bug, for converge's own tests: one of %v", Bugs))
	flag.Parse()
	if *bug != "" && !slices.Contains(Bugs, *bug) {
		fmt.Fprintf(os.Stderr, "informer: unknown --bug %q (one of %v)\n", *bug, Bugs)
		os.Exit(2)
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), nil).ClientConfig()
	if err != nil {
		log.Fatalf("informer: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c := newController(dynamic.NewForConfigOrDie(cfg), kubernetes.NewForConfigOrDie(cfg), *bug)
	if err := c.run(ctx); err != nil {
		log.Fatalf("informer: %v", err)
	}
}

// controller is the operator: an informer per kind, one work queue of
// Greeting keys, one worker.
type controller struct {
	dyn   dynamic.Interface
	kube  kubernetes.Interface
	bug   string
	queue workqueue.TypedRateLimitingInterface[string]

	greetingFactory  dynamicinformer.DynamicSharedInformerFactory
	configMapFactory informers.SharedInformerFactory
	greetings        cache.GenericLister
	configMaps       cache.SharedIndexInformer
}

func newController(dyn dynamic.Interface, kube kubernetes.Interface, bug string) *controller {
	c := &controller{dyn: dyn, kube: kube, bug: bug,
		queue:            workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		greetingFactory:  dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0),
		configMapFactory: informers.NewSharedInformerFactory(kube, 0),
	}
	g := c.greetingFactory.ForResource(greetings)
	c.greetings = g.Lister()
	_, _ = g.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		DeleteFunc: c.enqueue,
	})
	c.configMaps = c.configMapFactory.Core().V1().ConfigMaps().Informer()
	_, _ = c.configMaps.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueOwner,
		UpdateFunc: func(_, obj any) { c.enqueueOwner(obj) },
		DeleteFunc: c.enqueueOwner,
	})
	return c
}

// run starts the informers, waits for their caches and works the queue
// until ctx ends.
func (c *controller) run(ctx context.Context) error {
	defer c.queue.ShutDown()
	c.greetingFactory.Start(ctx.Done())
	c.configMapFactory.Start(ctx.Done())
	for gvr, ok := range c.greetingFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("the %s cache did not sync", gvr.Resource)
		}
	}
	for typ, ok := range c.configMapFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("the %v cache did not sync", typ)
		}
	}
	log.Print("informer: caches synced, working")
	go func() { <-ctx.Done(); c.queue.ShutDown() }()
	for c.next(ctx) {
	}
	return nil
}

// next reconciles the next key; a failure is retried with the queue's
// backoff, as sample-controller does.
func (c *controller) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.reconcile(ctx, key); err != nil {
		log.Printf("error syncing %q: %v, requeuing", key, err)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *controller) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// enqueueOwner queues the Greeting that controls a ConfigMap.
func (c *controller) enqueueOwner(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	if ref := metav1.GetControllerOf(m); ref != nil && ref.Kind == "Greeting" {
		c.queue.Add(m.GetNamespace() + "/" + ref.Name)
	}
}
