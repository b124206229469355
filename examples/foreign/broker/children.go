package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	mqv1 "github.com/converge-dev/converge/examples/foreign/broker/api/v1"
)

// ConfigHashAnnotation on the pod template restarts the pods when the
// rendered configuration changes.
const ConfigHashAnnotation = "mq.probe.example.com/config-hash"

const configKey = "broker.conf"

func labelsFor(b *mqv1.Broker) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "broker", "app.kubernetes.io/instance": b.Name,
		"app.kubernetes.io/managed-by": "broker-operator"}
}

// renderConfig is the broker's configuration file.
func renderConfig(b *mqv1.Broker) string {
	return fmt.Sprintf("listeners.tcp.default = %d\nlog.console.level = %s\nmax_connections = %d\n",
		b.Spec.Port, b.Spec.LogLevel, b.Spec.MaxConnections)
}

func configHash(conf string) string {
	sum := sha256.Sum256([]byte(conf))
	return hex.EncodeToString(sum[:8])
}

func setLabels(have map[string]string, want map[string]string) map[string]string {
	if have == nil {
		have = map[string]string{}
	}
	for k, v := range want {
		have[k] = v
	}
	return have
}

// reconcileChildren makes the ConfigMap, the Service and the Deployment
// match the spec, changing only the fields the operator owns.
func (r *Reconciler) reconcileChildren(ctx context.Context, b *mqv1.Broker) error {
	conf := renderConfig(b)
	wrote, err := r.reconcileConfig(ctx, b, conf)
	if err != nil {
		return err
	}
	if err := r.reconcileService(ctx, b); err != nil {
		return err
	}
	err = r.reconcileDeployment(ctx, b, conf, wrote)
	// BugSwallowDeploymentError: the failed write is only logged (ISSTA'24
	// error handling; redis-operator#1097).
	if BugSwallowDeploymentError && err != nil {
		logf(ctx, "deployment not updated", "error", err.Error())
		return nil
	}
	return err
}

// reconcileConfig writes the rendered configuration; wrote says whether
// this call changed it.
func (r *Reconciler) reconcileConfig(ctx context.Context, b *mqv1.Broker, conf string) (wrote bool, err error) {
	// BugGeneratedConfigName: a generated name, remembered in status
	// (libopenstorage/operator#674; Sieve intermediate state).
	if BugGeneratedConfigName {
		return r.reconcileGeneratedConfig(ctx, b, conf)
	}
	cm := &corev1.ConfigMap{}
	cm.Name, cm.Namespace = b.Name+"-config", b.Namespace
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Labels = setLabels(cm.Labels, labelsFor(b))
		cm.Data = map[string]string{configKey: conf}
		// BugNoOwnerOnConfig: no ownerReference (zookeeper-operator#42).
		if BugNoOwnerOnConfig {
			return nil
		}
		return controllerutil.SetControllerReference(b, cm, r.Scheme)
	})
	return op != controllerutil.OperationResultNone, err
}

func (r *Reconciler) reconcileGeneratedConfig(ctx context.Context, b *mqv1.Broker, conf string) (bool, error) {
	if b.Status.ConfigMapName == "" {
		cm := &corev1.ConfigMap{}
		cm.GenerateName, cm.Namespace = b.Name+"-config-", b.Namespace
		cm.Labels = labelsFor(b)
		cm.Data = map[string]string{configKey: conf}
		if err := controllerutil.SetControllerReference(b, cm, r.Scheme); err != nil {
			return false, err
		}
		if err := r.Create(ctx, cm); err != nil {
			return false, err
		}
		b.Status.ConfigMapName = cm.Name
		return true, r.Status().Update(ctx, b)
	}
	cm := &corev1.ConfigMap{}
	cm.Name, cm.Namespace = b.Status.ConfigMapName, b.Namespace
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Labels = setLabels(cm.Labels, labelsFor(b))
		cm.Data = map[string]string{configKey: conf}
		return controllerutil.SetControllerReference(b, cm, r.Scheme)
	})
	return op != controllerutil.OperationResultNone, err
}

func (r *Reconciler) reconcileService(ctx context.Context, b *mqv1.Broker) error {
	svc := &corev1.Service{}
	svc.Name, svc.Namespace = b.Name, b.Namespace
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		svc.Labels = setLabels(svc.Labels, labelsFor(b))
		svc.Spec.Selector = labelsFor(b)
		port := corev1.ServicePort{Name: "amqp", Protocol: corev1.ProtocolTCP, Port: b.Spec.Port,
			TargetPort: intstr.FromInt32(b.Spec.Port)}
		// BugPortOnlyOnCreate: the port is set on create only (rabbitmq
		// cluster-operator#992, tarantool-operator#61).
		if !BugPortOnlyOnCreate || svc.CreationTimestamp.IsZero() {
			svc.Spec.Ports = []corev1.ServicePort{port}
		}
		return controllerutil.SetControllerReference(b, svc, r.Scheme)
	})
	return err
}

func (r *Reconciler) reconcileDeployment(ctx context.Context, b *mqv1.Broker, conf string, configWritten bool) error {
	dep := &appsv1.Deployment{}
	dep.Name, dep.Namespace = b.Name, b.Namespace
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		labels := labelsFor(b)
		dep.Labels = setLabels(dep.Labels, labels)
		// BugOverwriteMetadata: other writers' labels and annotations are
		// wiped (rabbitmq/cluster-operator#999).
		if BugOverwriteMetadata {
			dep.Labels, dep.Annotations = labels, nil
		}
		replicas := b.Spec.Replicas
		dep.Spec.Replicas = &replicas
		if dep.CreationTimestamp.IsZero() {
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		tpl := &dep.Spec.Template
		tpl.Labels = setLabels(tpl.Labels, labels)
		hash := configHash(conf)
		// BugRestartOnlyOnConfigWrite: the hash moves only in the reconcile
		// that wrote the ConfigMap (nifikop#49).
		if BugRestartOnlyOnConfigWrite && !configWritten && !dep.CreationTimestamp.IsZero() {
			hash = tpl.Annotations[ConfigHashAnnotation]
		}
		tpl.Annotations = setLabels(tpl.Annotations, map[string]string{ConfigHashAnnotation: hash})
		if len(tpl.Spec.Containers) == 0 {
			tpl.Spec.Containers = []corev1.Container{{Name: "broker"}}
		}
		c := &tpl.Spec.Containers[0]
		c.Image = b.Spec.Image
		c.Ports = []corev1.ContainerPort{{Name: "amqp", ContainerPort: b.Spec.Port, Protocol: corev1.ProtocolTCP}}
		return controllerutil.SetControllerReference(b, dep, r.Scheme)
	})
	return err
}
