package model

import (
	"fmt"
	"sort"
	"strconv"
)

// Names are derived, never random, so that the model and the implementation
// agree on every object name (ARCHITECTURE.md, contract 2: determinism).

// safeAlphabet avoids vowels and look-alike digits, as Kubernetes does, so a
// hash never spells a word.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// TemplateHash is the pod-template-hash of a pod template: a short, stable
// digest of the image, the labels and the rest of the template (see
// Deployment.Template; "" leaves the hash as image and labels give it).
func TemplateHash(image string, labels map[string]string, template string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// FNV-1a, 64 bit, written out to stay allocation-light and stdlib-only.
	h := uint64(14695981039346656037)
	mix := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		h ^= 0xff // separator, so ("ab","c") and ("a","bc") differ
		h *= 1099511628211
	}
	mix(image)
	for _, k := range keys {
		mix(k)
		mix(labels[k])
	}
	if template != "" {
		mix("\x00template")
		mix(template)
	}
	out := make([]byte, 10)
	for i := range out {
		out[i] = safeAlphabet[h%uint64(len(safeAlphabet))]
		h /= uint64(len(safeAlphabet))
	}
	return string(out)
}

// ReplicaSetName is the name of a Deployment's ReplicaSet for one template.
func ReplicaSetName(deployment, templateHash string) string {
	return deployment + "-" + templateHash
}

// GeneratedName is the name the store gives the n-th object (counting from 0)
// created with a generateName prefix: the prefix plus a per-prefix counter
// that the store keeps, so names are never reused after a delete.
func GeneratedName(prefix string, n int) string {
	return prefix + strconv.Itoa(n)
}

// NodeIP is node number nodeIndex's own address: slot 1 of its pod range,
// which pods never take (their slots start at 2).
func NodeIP(nodeIndex int) string { return PodIP(nodeIndex, 1) }

// PodIP is the address of host slot `slot` in node number `nodeIndex`'s pod
// range. Node ranges are /24s inside 127.0.0.0/8, so pods can really bind
// them on loopback.
func PodIP(nodeIndex, slot int) string {
	return fmt.Sprintf("127.%d.%d.%d", 100+nodeIndex/250, nodeIndex%250, slot)
}
