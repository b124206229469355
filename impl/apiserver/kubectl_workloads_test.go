package apiserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// workloadManifests are the stored workload kinds' realistic manifests
// under testdata/workloads, with the resource kubectl reads each back as.
var workloadManifests = map[string]string{
	"statefulset.yaml":   "statefulset/db",
	"daemonset.yaml":     "daemonset/log-agent",
	"job.yaml":           "job/migrate",
	"pvc.yaml":           "pvc/shared-data",
	"endpointslice.yaml": "endpointslice/external-db-1",
	// Kinds operators own beside their workloads.
	"cronjob.yaml":            "cronjob/nightly-backup",
	"hpa.yaml":                "hpa/webapp",
	"ingress.yaml":            "ingress/webapp",
	"networkpolicy.yaml":      "networkpolicy/db-from-webapp",
	"pdb.yaml":                "pdb/webapp",
	"role.yaml":               "role/leader-election",
	"rolebinding.yaml":        "rolebinding/leader-election",
	"clusterrole.yaml":        "clusterrole/webapp-manager",
	"clusterrolebinding.yaml": "clusterrolebinding/webapp-manager",
	// A kind with a controller and converge's own type, with the fields
	// every operator's Deployment has and the model does not act on.
	"deployment.yaml": "deployment/webapp",
}

// TestKubectlWorkloadsRoundTrip: each manifest applied with the real
// kubectl (client-side apply, then server-side apply again) reads back
// with `kubectl get -o yaml` holding every field it set, unchanged (see
// roundTrip).
func TestKubectlWorkloadsRoundTrip(t *testing.T) {
	k := newKubectlEnv(t)
	for file := range workloadManifests {
		t.Run(file, func(t *testing.T) { roundTrip(t, k, filepath.Join("testdata", "workloads", file)) })
	}
}

// TestKubectlWorkloadsDefaults: what the server fills in, as a real
// cluster does.
func TestKubectlWorkloadsDefaults(t *testing.T) {
	k := newKubectlEnv(t)
	for file := range workloadManifests {
		k.run("apply", "-f", filepath.Join("testdata", "workloads", file))
	}
	for args, want := range map[string]string{
		"statefulset/db -o jsonpath={.spec.volumeClaimTemplates[0].spec.volumeMode}/{.spec.volumeClaimTemplates[0].kind}/{.spec.volumeClaimTemplates[0].status.phase}": "Filesystem/PersistentVolumeClaim/Pending",
		"statefulset/db -o jsonpath={.spec.template.spec.containers[0].ports[0].protocol}/{.spec.template.spec.schedulerName}":                                         "TCP/default-scheduler",
		"daemonset/log-agent -o jsonpath={.spec.updateStrategy.rollingUpdate.maxSurge}/{.spec.revisionHistoryLimit}/{.spec.template.spec.volumes[0].hostPath.type}":    "0/10/",
		"job/migrate -o jsonpath={.spec.completionMode}/{.spec.suspend}/{.spec.podReplacementPolicy}/{.spec.template.metadata.labels.job-name}":                        "NonIndexed/false/Failed/migrate",
		"pvc/shared-data -o jsonpath={.status.phase}": "Pending",
		"cronjob/nightly-backup -o jsonpath={.spec.suspend}/{.spec.failedJobsHistoryLimit}/{.spec.jobTemplate.spec.template.spec.dnsPolicy}": "false/1/ClusterFirst",
		"networkpolicy/db-from-webapp -o jsonpath={.spec.policyTypes}/{.spec.ingress[0].ports[0].protocol}":                                  "[\"Ingress\",\"Egress\"]/TCP",
		"rolebinding/leader-election -o jsonpath={.subjects[1].apiGroup}/{.subjects[0].apiGroup}":                                            "rbac.authorization.k8s.io/",
	} {
		f := strings.Fields(args)
		if out := k.run(append([]string{"get"}, f...)...); out != want {
			t.Errorf("get %s = %q, want %q", args, out, want)
		}
	}
	// A Job's generated selector is its uid label, and its pods carry it.
	uid := k.run("get", "job/migrate", "-o", "jsonpath={.metadata.uid}")
	if sel := k.run("get", "job/migrate", "-o", "jsonpath={.spec.selector.matchLabels.batch\\.kubernetes\\.io/controller-uid}/{.spec.template.metadata.labels.controller-uid}"); sel != uid+"/"+uid {
		t.Errorf("job selector %q, uid %q", sel, uid)
	}
}

// TestKubectlWorkloadsGetExplainDiscover: kubectl's columns, explain and
// api-resources for the stored workload kinds.
func TestKubectlWorkloadsGetExplainDiscover(t *testing.T) {
	k := newKubectlEnv(t)
	for file := range workloadManifests {
		k.run("apply", "-f", filepath.Join("testdata", "workloads", file))
	}
	for _, c := range []struct {
		args string
		want []string
	}{
		{"get statefulsets", []string{"NAME   READY   AGE", "db     0/3"}},
		{"get daemonsets", []string{"NAME        DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE", "log-agent   0         0         0       0            0           kubernetes.io/os=linux"}},
		{"get jobs", []string{"NAME      STATUS    COMPLETIONS   DURATION   AGE", "migrate   Running   0/5"}},
		{"get pvc", []string{"NAME          STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE", "shared-data   Pending                                      nfs-client     <unset>"}},
		{"get statefulsets,daemonsets,jobs,pvc", []string{"statefulset.apps/db   0/3", "daemonset.apps/log-agent", "job.batch/migrate   Running   0/5", "persistentvolumeclaim/shared-data   Pending"}},
		{"get sts -o wide", []string{"CONTAINERS", "postgres:16.2"}},
		{"explain statefulset.spec", []string{"volumeClaimTemplates", "podManagementPolicy", "serviceName"}},
		{"explain daemonset.spec.updateStrategy", []string{"rollingUpdate"}},
		{"explain job.spec", []string{"backoffLimit", "completions", "podFailurePolicy"}},
		{"explain pvc.spec", []string{"storageClassName", "accessModes"}},
		{"get cronjobs", []string{"NAME             SCHEDULE     TIMEZONE       SUSPEND   ACTIVE   LAST SCHEDULE   AGE", "nightly-backup   30 2 * * *   Europe/Paris   False     0        <none>"}},
		{"get hpa", []string{"NAME     REFERENCE           TARGETS                                       MINPODS   MAXPODS   REPLICAS   AGE",
			"webapp   Deployment/webapp   cpu: <unknown>/70%, memory: <unknown>/512Mi   2         10        0"}},
		{"explain hpa.spec.behavior", []string{"GROUP:      autoscaling", "VERSION:    v2", "scaleDown"}},
		{"get ingress", []string{"NAME     CLASS   HOSTS                              ADDRESS   PORTS     AGE", "webapp   nginx   shop.example.com,api.example.com             80, 443"}},
		{"get netpol", []string{"NAME             POD-SELECTOR   AGE", "db-from-webapp   app=db"}},
		{"get pdb", []string{"NAME     MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE", "webapp   60%             N/A               0"}},
		{"get roles", []string{"NAME              CREATED AT", "leader-election   20"}},
		{"get rolebindings -o wide", []string{"NAME              ROLE                   AGE", "leader-election   Role/leader-election", "alice@example.com", "default/controller-manager"}},
		{"get clusterrolebinding webapp-manager", []string{"ClusterRole/webapp-manager"}},
		{"explain cronjob.spec", []string{"GROUP:      batch", "concurrencyPolicy", "jobTemplate", "schedule"}},
		{"explain ingress.spec.rules.http.paths", []string{"GROUP:      networking.k8s.io", "pathType"}},
		{"explain pdb.spec", []string{"GROUP:      policy", "minAvailable", "unhealthyPodEvictionPolicy"}},
		{"explain clusterrole", []string{"GROUP:      rbac.authorization.k8s.io", "aggregationRule", "rules"}},
		{"get endpointslices", []string{"NAME            ADDRESSTYPE   PORTS       ENDPOINTS",
			"external-db-1   IPv4          5432,9187   10.20.0.11,10.20.0.12,10.20.0.13 + 1 more..."}},
		{"get endpointslice.discovery.k8s.io -l kubernetes.io/service-name=external-db -o name", []string{"endpointslice.discovery.k8s.io/external-db-1"}},
		{"explain endpointslice", []string{"GROUP:      discovery.k8s.io", "addressType", "endpoints", "ports"}},
		{"explain endpointslice.endpoints.conditions", []string{"ready", "serving", "terminating"}},
		{"scale statefulset db --replicas=5", []string{"statefulset.apps/db scaled"}},
		{"get statefulset db -o jsonpath={.spec.replicas}", []string{"5"}},
		// kubectl's typed client sends protobuf.
		{"create job hello --image=busybox:1.36 -- echo hi", []string{"job.batch/hello created"}},
		{"get job hello -o jsonpath={.spec.template.spec.containers[0].command}/{.spec.template.spec.restartPolicy}", []string{`["echo","hi"]/Never`}},
	} {
		out := k.run(strings.Fields(c.args)...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("kubectl %s lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	// api-resources: name, short names, group version, namespaced, kind,
	// verbs and categories as upstream lists them.
	out := k.run("api-resources", "-o", "wide")
	for _, want := range [][]string{
		{"persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim", "create,delete,deletecollection,get,list,patch,update,watch"},
		{"statefulsets", "sts", "apps/v1", "true", "StatefulSet", "create,delete,deletecollection,get,list,patch,update,watch", "all"},
		{"daemonsets", "ds", "apps/v1", "true", "DaemonSet", "create,delete,deletecollection,get,list,patch,update,watch", "all"},
		{"jobs", "batch/v1", "true", "Job", "create,delete,deletecollection,get,list,patch,update,watch", "all"},
		{"endpointslices", "discovery.k8s.io/v1", "true", "EndpointSlice", "create,delete,deletecollection,get,list,patch,update,watch"},
		{"horizontalpodautoscalers", "hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler", "create,delete,deletecollection,get,list,patch,update,watch", "all"},
		{"cronjobs", "cj", "batch/v1", "true", "CronJob", "create,delete,deletecollection,get,list,patch,update,watch", "all"},
		{"ingresses", "ing", "networking.k8s.io/v1", "true", "Ingress", "create,delete,deletecollection,get,list,patch,update,watch"},
		{"networkpolicies", "netpol", "networking.k8s.io/v1", "true", "NetworkPolicy", "create,delete,deletecollection,get,list,patch,update,watch"},
		{"poddisruptionbudgets", "pdb", "policy/v1", "true", "PodDisruptionBudget", "create,delete,deletecollection,get,list,patch,update,watch"},
		{"roles", "rbac.authorization.k8s.io/v1", "true", "Role", "create,delete,deletecollection,get,list,patch,update,watch"},
		{"clusterrolebindings", "rbac.authorization.k8s.io/v1", "false", "ClusterRoleBinding", "create,delete,deletecollection,get,list,patch,update,watch"},
	} {
		if !hasRow(out, want) {
			t.Errorf("api-resources lacks %v:\n%s", want, out)
		}
	}
}

// hasRow: some line of out has exactly these fields, in order.
func hasRow(out string, fields []string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(strings.ReplaceAll(l, "[", ""))
		for i := range f {
			f[i] = strings.TrimSuffix(f[i], "]")
		}
		if strings.Join(f, " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

func yamlToAny(t *testing.T, b []byte) any {
	t.Helper()
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// missingFrom lists what of want is not in got: every map key of want at
// its path, every list item at its index, every scalar equal.
func missingFrom(want, got any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v, want an object", path, got)}
		}
		var out []string
		for k, v := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, path+"."+k+": lost")
				continue
			}
			out = append(out, missingFrom(v, gv, path+"."+k)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		var out []string
		for i := range w {
			out = append(out, missingFrom(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
	}
	return nil
}

// TestKubectlEventsV1: an events.k8s.io/v1 Event applied with kubectl is
// read back whole through its group and seen by `kubectl get events`
// (core/v1) as the same event.
func TestKubectlEventsV1(t *testing.T) {
	k := newKubectlEnv(t)
	roundTrip(t, k, filepath.Join("testdata", "workloads", "event-v1.yaml"))
	for _, c := range []struct {
		args string
		want []string
	}{
		{"get events", []string{"ScaledUp", "statefulset/db", "scaled statefulset db to 3 replicas"}},
		{"get events db.scaled -o jsonpath={.message}/{.involvedObject.name}/{.reportingComponent}", []string{"scaled statefulset db to 3 replicas/db/example.com/db-operator"}},
		{"explain events --api-version=events.k8s.io/v1", []string{"regarding", "deprecatedCount", "reportingController"}},
	} {
		out := k.run(strings.Fields(c.args)...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("kubectl %s lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	if out := k.run("api-resources", "--api-group=events.k8s.io"); !hasRow(out, []string{"events", "ev", "events.k8s.io/v1", "true", "Event"}) {
		t.Errorf("api-resources:\n%s", out)
	}
}
