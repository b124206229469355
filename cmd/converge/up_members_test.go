package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/etcd/etcdcluster"
)

// kubectlAcked runs kubectl until it succeeds: a failure while a member is
// down or a leader is being elected is not an acknowledgement, and each
// command used here is idempotent, so a retry is what a user would do.
func kubectlAcked(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		cmd := exec.Command(kubectlBin, append([]string{"--request-timeout=10s"}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if err == nil {
			return string(out)
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl %s never acknowledged: %v\n%s", strings.Join(args, " "), err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// seedState is what the test reads back of the Deployment and its Pods.
type seedState struct {
	replicas, ready int
	images          []string
	pods            int
}

func readSeed(t *testing.T, kc string) (seedState, bool) {
	t.Helper()
	var d struct {
		Items []struct {
			Spec struct {
				Replicas int `json:"replicas"`
				Template struct {
					Spec struct {
						Containers []struct{ Image string } `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
			Status struct {
				ReadyReplicas   int `json:"readyReplicas"`
				UpdatedReplicas int `json:"updatedReplicas"`
			} `json:"status"`
		} `json:"items"`
	}
	var pods struct {
		Items []struct {
			Spec struct {
				Containers []struct{ Image string } `json:"containers"`
			} `json:"spec"`
		} `json:"items"`
	}
	if json.Unmarshal([]byte(kubectlAcked(t, kc, "get", "deploy", "-l", "app=myapp", "-o", "json")), &d) != nil ||
		json.Unmarshal([]byte(kubectlAcked(t, kc, "get", "pods", "-l", "app=myapp", "-o", "json")), &pods) != nil {
		return seedState{}, false
	}
	var s seedState
	if len(d.Items) == 1 {
		s.replicas, s.ready = d.Items[0].Spec.Replicas, d.Items[0].Status.ReadyReplicas
		s.images = []string{d.Items[0].Spec.Template.Spec.Containers[0].Image}
	}
	s.pods = len(pods.Items)
	for _, p := range pods.Items {
		s.images = append(s.images, p.Spec.Containers[0].Image)
	}
	return s, len(d.Items) == 1
}

// waitSeed polls until ok holds of what is read back, failing after a minute.
func waitSeed(t *testing.T, kc, what string, ok func(seedState, bool) bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		s, exists := readSeed(t, kc)
		if ok(s, exists) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never %s: %+v (exists %v)", what, s, exists)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// memberFaults kills and restarts followers and leaders and isolates a
// member, in turn, until stop is closed; it returns the faults it fired.
func memberFaults(t *testing.T, c *etcdcluster.Cluster, stop <-chan struct{}) (count func() int, done func() []string) {
	var mu sync.Mutex
	var fired []string
	finished := make(chan struct{})
	pause := func() bool {
		select {
		case <-stop:
			return false
		case <-time.After(500 * time.Millisecond):
			return true
		}
	}
	note := func(s string) { mu.Lock(); fired = append(fired, s); mu.Unlock() }
	go func() {
		defer close(finished)
		for round := 0; ; round++ {
			lead, err := c.Leader(10 * time.Second)
			if err != nil {
				t.Errorf("no leader: %v", err)
				return
			}
			victim := lead
			switch round % 3 {
			case 0: // the leader crashes: an election
				if victim, err = c.KillLeader(10 * time.Second); err == nil {
					note("kill-leader")
				}
			case 1: // a follower crashes
				victim = (lead + 1) % c.Size()
				if err = c.Kill(victim); err == nil {
					note("kill-follower")
				}
			case 2: // a follower is cut off from its peers
				victim = (lead + 2) % c.Size()
				if err = c.Isolate(victim); err == nil {
					note("isolate")
				}
			}
			if err != nil {
				t.Errorf("fault %d: %v", round, err)
				return
			}
			more := pause()
			if round%3 == 2 {
				c.Heal()
			} else if err := c.Restart(victim); err != nil {
				t.Errorf("restart member %d: %v", victim, err)
				return
			}
			if !more || !pause() {
				return
			}
		}
	}()
	return func() int { mu.Lock(); defer mu.Unlock(); return len(fired) }, func() []string {
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return fired
	}
}

func allImages(s seedState, image string) bool {
	for _, im := range s.images {
		if im != image {
			return false
		}
	}
	return true
}

// TestSeedFlowOnThreeMembersUnderFaults runs converge up on a 3-member
// etcd and walks the seed flow (apply, scale, set image, delete) with kubectl
// while members crash, leaders change and a member is cut off. Every
// acknowledged step must be read back and never undone, and the control
// plane must converge after each.
func TestSeedFlowOnThreeMembersUnderFaults(t *testing.T) {
	needKubectl(t)
	got := make(chan *etcdcluster.Cluster, 1)
	kc, stopUp := startUpWith(t, upFlags{dataDir: filepath.Join(t.TempDir(), "data"), listen: "127.0.0.1:0", nodes: 3,
		tick: 200 * time.Millisecond, quiet: true, events: true, etcdMembers: 3,
		onEtcdCluster: func(c *etcdcluster.Cluster) { got <- c }})
	defer stopUp()
	c := <-got
	stop := make(chan struct{})
	faultCount, faultsDone := memberFaults(t, c, stop)
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
			faultsDone()
		}
	}()

	kubectlAcked(t, kc, "apply", "-f", "examples/my-app.yaml")
	waitSeed(t, kc, "3 ready", func(s seedState, ok bool) bool { return ok && s.replicas == 3 && s.ready == 3 && s.pods == 3 })
	kubectlAcked(t, kc, "scale", "deployment", "myapp", "--replicas=5")
	waitSeed(t, kc, "5 ready", func(s seedState, ok bool) bool { return ok && s.replicas == 5 && s.ready == 5 && s.pods == 5 })
	kubectlAcked(t, kc, "set", "image", "deployment/myapp", "nginx=nginx:1.28")
	waitSeed(t, kc, "5 on nginx:1.28", func(s seedState, ok bool) bool {
		return ok && s.replicas == 5 && s.ready == 5 && s.pods == 5 && allImages(s, "nginx:1.28")
	})

	// Under every kind of fault at least twice, what was acknowledged
	// stays: never fewer replicas, never the old image.
	for deadline := time.Now().Add(60 * time.Second); faultCount() < 6; {
		if s, ok := readSeed(t, kc); !ok || s.replicas != 5 || s.images[0] != "nginx:1.28" {
			t.Fatalf("an acknowledged write was undone: %+v (exists %v)", s, ok)
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d faults fired in a minute", faultCount())
		}
		time.Sleep(300 * time.Millisecond)
	}
	close(stop)
	t.Logf("faults fired: %v", faultsDone())
	// Acknowledged writes survive the faults: still 5 replicas of 1.28.
	waitSeed(t, kc, "kept 5 on nginx:1.28", func(s seedState, ok bool) bool {
		return ok && s.replicas == 5 && s.pods == 5 && allImages(s, "nginx:1.28")
	})

	// The delete runs under a leader change of its own.
	if _, err := c.KillLeader(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	kubectlAcked(t, kc, "delete", "deployment", "myapp", "--ignore-not-found")
	waitSeed(t, kc, "gone with its pods", func(s seedState, ok bool) bool { return !ok && s.pods == 0 })
}

func TestUpEtcdMembersFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--etcd-members", "2"}, "--etcd-members must be 1, 3 or 5"},
		{[]string{"--etcd-members", "0"}, "--etcd-members must be 1, 3 or 5"},
		{[]string{"--etcd-members", "3", "--etcd-endpoints", "http://127.0.0.1:2379"}, "exclude each other"},
		{[]string{"--nodes", "5001"}, "--nodes must be between 0 and 5000"},
		{[]string{"--nodes", "-1"}, "--nodes must be between 0 and 5000"},
	} {
		var out, errOut bytes.Buffer
		err := runUp(c.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("up %v: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
}
