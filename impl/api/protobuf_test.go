package api

import "testing"

// Every built-in kind is stored as kube-apiserver stores it, in protobuf:
// a kind whose group the protobuf scheme misses would go to etcd as JSON
// without a word.
func TestEveryBuiltInKindHasProtobuf(t *testing.T) {
	for _, r := range Resources() {
		obj, err := New(r.Resource)
		if err != nil {
			t.Fatalf("%s: %v", r.Resource, err)
		}
		if !HasProtobuf(obj) {
			t.Errorf("%s (%s) has no protobuf encoding in api.Protobuf's scheme", r.Resource, r.Kind)
		}
		b, err := MarshalProtobuf(obj)
		if err != nil || !IsProtobuf(b) {
			t.Errorf("%s: MarshalProtobuf = %q, %v", r.Resource, b, err)
		}
	}
	if HasProtobuf(&CustomObject{}) {
		t.Error("a custom resource has protobuf")
	}
}
