package registry_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// TestReadCRDsOnceInstallThemOnMany: a harness reads its CRDs once and
// installs them on a registry per run; Install leaves what it was given as
// it was, so the next registry gets the same CRDs.
func TestReadCRDsOnceInstallThemOnMany(t *testing.T) {
	crds, err := registry.ReadCRDs("../../examples/crd/bases")
	if err != nil {
		t.Fatal(err)
	}
	read := api.DeepCopy(crds)
	for run := range 2 {
		reg, ctx := newRegistry(t)
		names, err := reg.Install(ctx, crds)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if want := []string{"widgets.example.com"}; !reflect.DeepEqual(names, want) {
			t.Fatalf("run %d: installed %v, want %v", run, names, want)
		}
		if !reflect.DeepEqual(crds, read) {
			t.Fatalf("run %d: Install changed the CRDs it was given", run)
		}
		if _, err := reg.Get(ctx, "customresourcedefinitions", "", "widgets.example.com"); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
}

// TestReadCRDsRefusesOtherKinds: the CRD directory holds CRDs only, and the
// error names the file.
func TestReadCRDsRefusesOtherKinds(t *testing.T) {
	dir := t.TempDir()
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
	if err := os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte(cm), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := registry.ReadCRDs(dir)
	if err == nil || !strings.Contains(err.Error(), "cm.yaml") || !strings.Contains(err.Error(), "holds CRDs only") {
		t.Fatalf("got %v, want an error naming cm.yaml", err)
	}
}
