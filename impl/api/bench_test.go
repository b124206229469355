package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Baselines (raw encoding/json) sit next to the real work so a run shows
// the cost of strictness and YAML as a ratio.

// fixturePod is testdata/pod.json, decoded.
func fixturePod(tb testing.TB) *Pod {
	tb.Helper()
	obj, err := Decode("pods", benchData(tb, "pod.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return obj.(*Pod)
}

func benchData(b testing.TB, name string) []byte {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkRawJSONUnmarshalDeployment(b *testing.B) {
	data := benchData(b, "deployment.json")
	b.ReportAllocs()
	for b.Loop() {
		var d Deployment
		if err := json.Unmarshal(data, &d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeDeploymentStrict(b *testing.B) {
	data := benchData(b, "deployment.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode("deployments", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeManifestsSeedYAML(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "my-app.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeManifests(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONMarshalPod is encoding/json alone; Marshal
// (BenchmarkMarshalPod) adds filling in the kind on a shallow copy.
func BenchmarkJSONMarshalPod(b *testing.B) {
	obj := fixturePod(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(obj); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalPod(b *testing.B) {
	obj := fixturePod(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(obj); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDefaultAndValidateDeployment(b *testing.B) {
	d := validDeployment()
	b.ReportAllocs()
	for b.Loop() {
		Default(d)
		if err := Validate(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeepCopyPod(b *testing.B) {
	obj := fixturePod(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = DeepCopy(obj)
	}
}

// BenchmarkJSONRoundTripCopyPod is the naive copy DeepCopy replaces.
func BenchmarkJSONRoundTripCopyPod(b *testing.B) {
	data := benchData(b, "pod.json")
	var p Pod
	if err := json.Unmarshal(data, &p); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out, _ := json.Marshal(&p)
		var cp Pod
		if err := json.Unmarshal(out, &cp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanonicalizePod is what a write does so that it can keep the
// object it wrote instead of decoding its value again
// (BenchmarkRawJSONUnmarshalPod): the pod, decoded, is canonical already.
func BenchmarkCanonicalizePod(b *testing.B) {
	obj := fixturePod(b)
	b.ReportAllocs()
	for b.Loop() {
		if !Canonicalize(obj) {
			b.Fatal("not canonical")
		}
	}
}

// BenchmarkRawJSONUnmarshalPod is the decode Canonicalize stands in for.
func BenchmarkRawJSONUnmarshalPod(b *testing.B) {
	data := benchData(b, "pod.json")
	b.ReportAllocs()
	for b.Loop() {
		var p Pod
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}
