package api

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The stored-only kinds are checked as Kubernetes' core and coordination
// validation checks them, for what their clients rely on: key syntax
// (apimachinery's IsConfigMapKey), the 1 MiB size cap, the keys a typed
// Secret must hold, immutability, and a Lease's durations.

// maxDataBytes is Kubernetes' cap on a ConfigMap's or a Secret's data.
const maxDataBytes = 1 << 20

// immutableDetail is Kubernetes' message for a write to immutable data.
const immutableDetail = "field is immutable when `immutable` is set"

// validateStored checks obj on create; false if obj is not a stored kind.
func validateStored(e *errs, obj Object, km kindMeta) bool {
	switch o := obj.(type) {
	case *ConfigMap:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		size := 0
		for _, k := range sortedKeys(o.Data) {
			e.invalidEach(fieldPath("data").key(k), k, validation.IsConfigMapKey(k))
			size += len(o.Data[k])
		}
		for k, v := range o.BinaryData {
			e.invalidEach(fieldPath("binaryData").key(k), k, validation.IsConfigMapKey(k))
			if _, dup := o.Data[k]; dup {
				e.invalid(fieldPath("binaryData").key(k), k, "duplicate of key present in data")
			}
			size += len(v)
		}
		if size > maxDataBytes {
			e.add(FieldTooLong("", maxDataBytes))
		}
	case *Secret:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		validateSecret(e, o)
	case *ServiceAccount:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
	case *Lease:
		validateMeta(e, &o.ObjectMeta, km, apivalidation.NameIsDNSSubdomain)
		if d := o.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
			e.invalid("spec.leaseDurationSeconds", *d, "must be greater than 0")
		}
		if n := o.Spec.LeaseTransitions; n != nil {
			e.nonNegative("spec.leaseTransitions", int64(*n))
		}
	default:
		return false
	}
	return true
}

func validateSecret(e *errs, s *Secret) {
	size := 0
	for k, v := range s.Data {
		e.invalidEach(fieldPath("data").key(k), k, validation.IsConfigMapKey(k))
		size += len(v)
	}
	if size > maxDataBytes {
		e.add(FieldTooLong("data", maxDataBytes))
	}
	need := func(key string) {
		if _, ok := s.Data[key]; !ok {
			e.required(fieldPath("data").key(key), "")
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			e.required(fieldPath("metadata").child("annotations").key(corev1.ServiceAccountNameKey), "")
		}
	case corev1.SecretTypeDockercfg:
		need(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		need(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, pass := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !pass {
			e.required(fieldPath("data").key(corev1.BasicAuthUsernameKey), "")
			e.required(fieldPath("data").key(corev1.BasicAuthPasswordKey), "")
		}
	case corev1.SecretTypeSSHAuth:
		need(corev1.SSHAuthPrivateKey)
	case corev1.SecretTypeTLS:
		need(corev1.TLSCertKey)
		need(corev1.TLSPrivateKeyKey)
	}
}

// validateStoredUpdate checks what a stored kind may not change.
func validateStoredUpdate(e *errs, old, obj Object) {
	switch o := obj.(type) {
	case *ConfigMap:
		was := old.(*ConfigMap)
		if isTrue(was.Immutable) {
			if !isTrue(o.Immutable) {
				e.forbidden("immutable", immutableDetail)
			}
			if !reflect.DeepEqual(o.Data, was.Data) {
				e.forbidden("data", immutableDetail)
			}
			if !reflect.DeepEqual(o.BinaryData, was.BinaryData) {
				e.forbidden("binaryData", immutableDetail)
			}
		}
	case *Secret:
		was := old.(*Secret)
		immutable(e, "type", o.Type, was.Type)
		if isTrue(was.Immutable) {
			if !isTrue(o.Immutable) {
				e.forbidden("immutable", immutableDetail)
			}
			if !reflect.DeepEqual(o.Data, was.Data) {
				e.forbidden("data", immutableDetail)
			}
		}
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

// defaultStored fills a stored kind's defaults. A Secret's stringData is
// merged into data and dropped, as Kubernetes' conversion does, and its
// type defaults to Opaque.
func defaultStored(obj Object) {
	if s, ok := obj.(*Secret); ok {
		if len(s.StringData) > 0 {
			if s.Data == nil {
				s.Data = make(map[string][]byte, len(s.StringData))
			}
			for _, k := range sortedKeys(s.StringData) {
				s.Data[k] = []byte(s.StringData[k])
			}
		}
		s.StringData = nil
		if s.Type == "" {
			s.Type = corev1.SecretTypeOpaque
		}
	}
}
