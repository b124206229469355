package kubeproto

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/*.json from the converted testdata/*.pb")

// fixtures are the bodies the real kubectl sent (captured by
// impl/apiserver's TestKubectlCreatesOverProtobuf -capture), with the
// resource each is posted to.
var fixtures = []struct {
	name, resource string
	check          func(t *testing.T, obj api.Object)
}{
	{"namespace", "namespaces", func(t *testing.T, obj api.Object) {
		if ns := obj.(*api.Namespace); ns.Name != "dev" || ns.Namespace != "" {
			t.Fatalf("namespace: %+v", ns.ObjectMeta)
		}
	}},
	{"deployment", "deployments", func(t *testing.T, obj api.Object) {
		d := obj.(*api.Deployment)
		c := d.Spec.Template.Spec.Containers
		if d.Name != "web" || d.Labels["app"] != "web" || d.Spec.Replicas == nil || *d.Spec.Replicas != 2 ||
			d.Spec.Selector == nil || d.Spec.Selector.MatchLabels["app"] != "web" || d.Spec.Template.Labels["app"] != "web" ||
			len(c) != 1 || c[0].Name != "nginx" || c[0].Image != "nginx:1.27" || len(c[0].Ports) != 1 || c[0].Ports[0].ContainerPort != 80 {
			t.Fatalf("deployment: %+v", d)
		}
	}},
	{"service", "services", func(t *testing.T, obj api.Object) {
		s := obj.(*api.Service)
		p := s.Spec.Ports
		if s.Name != "web" || s.Spec.Selector["app"] != "web" || s.Spec.Type != api.ServiceTypeClusterIP || len(p) != 1 ||
			p[0].Name != "80-8080" || p[0].Port != 80 || p[0].Protocol != api.ProtocolTCP || p[0].TargetPort.String() != "8080" {
			t.Fatalf("service: %+v", s)
		}
	}},
	{"deployment-dev", "deployments", func(t *testing.T, obj api.Object) {
		d := obj.(*api.Deployment)
		c := d.Spec.Template.Spec.Containers
		if d.Name != "api" || d.Namespace != "dev" || d.Spec.Replicas == nil || *d.Spec.Replicas != 1 ||
			len(c) != 1 || c[0].Image != "busybox" || len(c[0].Ports) != 0 {
			t.Fatalf("deployment in dev: %+v", d)
		}
	}},
}

func TestKubectlFixturesConvertToGoldenJSON(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", f.name+".pb"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := ToJSON(body)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, out, "", "  "); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			pretty.WriteByte('\n')
			golden := filepath.Join("testdata", f.name+".json")
			if *rewrite {
				if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (regenerate with -rewrite)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Fatalf("%s differs (rerun with -rewrite and review the diff):\ngot:\n%s\nwant:\n%s", golden, pretty.Bytes(), want)
			}
			obj, err := api.Decode(f.resource, out)
			if err != nil {
				t.Fatalf("api.Decode: %v\n%s", err, out)
			}
			f.check(t, obj)
		})
	}
}

// Every fixture is a file under testdata, and every file a fixture.
func TestEveryFixtureIsChecked(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.pb"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fixtures {
		names = append(names, f.name+".pb")
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	if strings.Join(got, ",") != strings.Join(slices.Sorted(slices.Values(names)), ",") {
		t.Fatalf("testdata holds %v, the table %v", got, names)
	}
}

func BenchmarkToJSONDeployment(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "deployment.pb"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := ToJSON(body); err != nil {
			b.Fatal(err)
		}
	}
}
