// Command fakeoperator is an operator with one bug, for the process
// check's own tests (properties/process_test.go). It reads KUBECONFIG.
//
//	-mode churn      rewrites an annotation of a ConfigMap of its own twice a second, forever
//	-mode finalizer  puts a finalizer on every WebApp and never takes it off
//	-mode exit       exits after its first request
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	mode := flag.String("mode", "", "churn, finalizer or exit")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	switch *mode {
	case "churn":
		churn(ctx, kubernetes.NewForConfigOrDie(cfg))
	case "finalizer":
		finalizer(ctx, dynamic.NewForConfigOrDie(cfg))
	case "exit":
		_, _ = kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		os.Exit(3)
	default:
		fmt.Fprintln(os.Stderr, "fakeoperator: -mode churn, finalizer or exit")
		os.Exit(2)
	}
}

func churn(ctx context.Context, c kubernetes.Interface) {
	cms := c.CoreV1().ConfigMaps("default")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "churn"}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		fmt.Fprintln(os.Stderr, err)
	}
	for i := 0; ; i++ {
		time.Sleep(500 * time.Millisecond)
		cur, err := cms.Get(ctx, "churn", metav1.GetOptions{})
		if err != nil {
			continue
		}
		cur.Annotations = map[string]string{"fake/pass": strconv.Itoa(i)}
		_, _ = cms.Update(ctx, cur, metav1.UpdateOptions{})
	}
}

func finalizer(ctx context.Context, c dynamic.Interface) {
	webapps := c.Resource(schema.GroupVersionResource{Group: "webapp.example.com", Version: "v1", Resource: "webapps"})
	for {
		w, err := webapps.Namespace("").Watch(ctx, metav1.ListOptions{})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for ev := range w.ResultChan() {
			o, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || o.GetDeletionTimestamp() != nil || slices.Contains(o.GetFinalizers(), "fake/never") {
				continue
			}
			o.SetFinalizers(append(o.GetFinalizers(), "fake/never"))
			_, _ = webapps.Namespace(o.GetNamespace()).Update(ctx, o, metav1.UpdateOptions{})
		}
	}
}
