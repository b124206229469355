package apiserver

import (
	"encoding/json"

	"github.com/converge-dev/converge/impl/api"
)

// jsonFromProtobuf is the JSON document of a protobuf body (what kubectl's
// typed clients and client-go send by default), with its apiVersion and
// kind, so that it is checked and decoded as a JSON body is. It reads it
// with k8s.io/api's own generated code (api.Protobuf), as kube-apiserver
// does. As upstream, protobuf has no strict decoding: a field number the
// generated code does not know is skipped.
func jsonFromProtobuf(body []byte) ([]byte, error) {
	obj, gvk, err := api.Protobuf.Decode(body, nil, nil)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	return json.Marshal(obj)
}
