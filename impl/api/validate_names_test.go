package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Names, labels and metadata are checked by apimachinery's validators; these
// pin the messages they give through converge's callers, kube-apiserver's
// wording, including where the hand copies they replaced differed.
func TestNameAndMetadataMessages(t *testing.T) {
	dep := func(mut func(d *Deployment)) Object { d := validDeployment(); mut(d); return d }
	yes := true
	cases := []struct {
		name string
		obj  Object
		want string
	}{
		{"subdomain name", dep(func(d *Deployment) { d.Name = "Bad_Name" }),
			`Deployment.apps "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		// A label that is a valid subdomain is told about its dots alone.
		{"label name with a dot", &Namespace{ObjectMeta: ObjectMeta{Name: "a.b"}},
			`Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots`},
		{"DNS-1035 name", &Service{ObjectMeta: ObjectMeta{Name: "1svc", Namespace: "default"}, Spec: validService().Spec},
			`Service "1svc" is invalid: metadata.name: Invalid value: "1svc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		// generateName is checked first, its trailing dash masked.
		{"generateName and name", dep(func(d *Deployment) { d.GenerateName = "Web-"; d.Name = "web_1" }),
			`Deployment.apps "web_1" is invalid: [metadata.generateName: Invalid value: "Web-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), ` +
				`metadata.name: Invalid value: "web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]`},
		{"label key with two slashes", dep(func(d *Deployment) { d.Labels["a/b/c"] = "x" }),
			`Deployment.apps "myapp" is invalid: metadata.labels: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`},
		// Several bad labels are reported in key order, every time.
		{"bad labels in key order", dep(func(d *Deployment) { d.Labels = map[string]string{"z": "-", "/a": "ok"} }),
			`Deployment.apps "myapp" is invalid: [metadata.labels: Invalid value: "/a": prefix part must be non-empty, ` +
				`metadata.labels: Invalid value: "-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]`},
		{"owner reference fields", dep(func(d *Deployment) { d.OwnerReferences = []OwnerReference{{Kind: "A", Name: "a"}} }),
			`Deployment.apps "myapp" is invalid: [metadata.ownerReferences[0].apiVersion: Required value: must not be empty, metadata.ownerReferences[0].uid: Required value: must not be empty]`},
		{"two controllers", dep(func(d *Deployment) {
			d.OwnerReferences = []OwnerReference{
				{APIVersion: "v1", Kind: "A", Name: "a", UID: "1", Controller: &yes},
				{APIVersion: "v1", Kind: "B", Name: "b", UID: "2", Controller: &yes},
			}
		}), `Deployment.apps "myapp" is invalid: metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"A","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"B","name":"b","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for A/a and B/b`},
		{"conflicting finalizers", dep(func(d *Deployment) { d.Finalizers = []string{"orphan", "foregroundDeletion"} }),
			`Deployment.apps "myapp" is invalid: metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set`},
		// Relaxed since 1.34: ".." and "1ST" pass, "=" does not.
		{"env var name", dep(func(d *Deployment) {
			d.Spec.Template.Spec.Containers[0].Env = []EnvVar{{Name: ".."}, {Name: "1ST"}, {Name: "A=B"}}
		}),
			`Deployment.apps "myapp" is invalid: spec.template.spec.containers[0].env[2].name: Invalid value: "A=B": ` + relaxedEnvMsg},
		{"selector expression", dep(func(d *Deployment) {
			d.Spec.Selector.MatchExpressions = []LabelSelectorRequirement{{Key: "app", Operator: "Within", Values: []string{"-x"}}}
		}), `Deployment.apps "myapp" is invalid: [spec.selector.matchExpressions[0].operator: Invalid value: "Within": not a valid selector operator, ` +
			`spec.selector.matchExpressions[0].values[0]: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.obj)
			if assert.Error(t, err) {
				assert.Equal(t, tc.want, err.Error())
			}
		})
	}
}

// An IP in a legacy field is parsed as the apiserver does with
// StrictIPCIDRValidation off: leading zeros pass, a zone does not.
func TestLegacyIPFields(t *testing.T) {
	s := validService()
	s.Spec.ClusterIP, s.Spec.ClusterIPs = "010.0.0.10", []string{"010.0.0.10"}
	assert.NoError(t, Validate(s))
	s.Spec.ClusterIP, s.Spec.ClusterIPs = "fe80::1%eth0", nil
	assert.EqualError(t, Validate(s),
		`Service "myapp" is invalid: spec.clusterIP: Invalid value: "fe80::1%eth0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`)
	n := validNode()
	n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.244.1.5/24", nil
	assert.NoError(t, Validate(n))
}

// relaxedEnvMsg is apimachinery's message for an environment variable name
// outside printable ASCII or with '=' (unexported there).
const relaxedEnvMsg = "a valid environment variable name must consist only of printable ASCII characters other than '='"
