package registry

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// InstallCRDs installs every CustomResourceDefinition in the manifests
// under dir (*.yaml, *.yml, *.json, in subdirectories too: kubebuilder
// projects keep them in config/crd/bases), creating each or updating the
// one stored, and serves them before it returns, so that their custom
// resources can be written at once. Other kinds in those files and
// kustomization files are refused: dir is meant to hold CRDs only. On any
// problem nothing more is installed and the error names the file. It
// returns the names of the CRDs installed, sorted.
func (r *Registry) InstallCRDs(ctx context.Context, dir string) ([]string, error) {
	crds, err := ReadCRDs(dir)
	if err != nil {
		return nil, err
	}
	return r.Install(ctx, crds)
}

// ReadCRDs reads the CustomResourceDefinitions in the manifests under dir,
// as InstallCRDs does, without installing them: a harness that installs
// the same CRDs on many registries reads them once.
func ReadCRDs(dir string) ([]*api.CustomResourceDefinition, error) {
	files, err := manifestFiles(dir)
	if err != nil {
		return nil, err
	}
	var crds []*api.CustomResourceDefinition
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		objs, err := api.DecodeManifests(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, o := range objs {
			c, ok := o.(*api.CustomResourceDefinition)
			if !ok {
				return nil, fmt.Errorf("%s: a %s is not a CustomResourceDefinition: the CRD directory holds CRDs only", f, api.TypeOf(o).Kind)
			}
			crds = append(crds, c)
		}
	}
	return crds, nil
}

// Install installs crds as InstallCRDs does, and returns their names,
// sorted. It does not change crds: the registry writes copies.
func (r *Registry) Install(ctx context.Context, crds []*api.CustomResourceDefinition) ([]string, error) {
	var names []string
	for _, c := range crds {
		if err := r.installCRD(ctx, c); err != nil {
			return names, fmt.Errorf("CustomResourceDefinition %s: %w", c.Name, err)
		}
		names = append(names, c.Name)
	}
	for _, n := range names {
		if _, err := r.SyncCRD(ctx, n); err != nil {
			return names, err
		}
		if err := r.checkEstablished(ctx, n); err != nil {
			return names, err
		}
	}
	slices.Sort(names)
	return names, nil
}

// installCRD creates c, or updates the stored CRD of its name to c.
func (r *Registry) installCRD(ctx context.Context, c *api.CustomResourceDefinition) error {
	_, err := r.Create(ctx, c)
	if !api.IsAlreadyExists(err) {
		return err
	}
	cur, err := r.Get(ctx, crdResource, "", c.Name)
	if err != nil {
		return err
	}
	next := api.DeepCopy(c)
	next.ResourceVersion = api.Meta(cur).ResourceVersion
	_, err = r.Update(ctx, next)
	return err
}

// checkEstablished fails when the CRD name could not be served (its names
// clash), with the condition's message.
func (r *Registry) checkEstablished(ctx context.Context, name string) error {
	obj, err := r.Get(ctx, crdResource, "", name)
	if err != nil {
		return err
	}
	for _, cond := range obj.(*api.CustomResourceDefinition).Status.Conditions {
		if cond.Type == "NamesAccepted" && cond.Status != "True" {
			return fmt.Errorf("CustomResourceDefinition %s is not served: %s", name, cond.Message)
		}
	}
	return nil
}

// manifestFiles lists the manifests under dir, sorted.
func manifestFiles(dir string) ([]string, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	var out []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch ext := strings.ToLower(filepath.Ext(p)); {
		case d.Name() == "kustomization.yaml" || d.Name() == "kustomization.yml" || d.Name() == "kustomizeconfig.yaml":
		case ext == ".yaml" || ext == ".yml" || ext == ".json":
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no manifests (*.yaml, *.yml, *.json)", dir)
	}
	slices.Sort(out)
	return out, nil
}
