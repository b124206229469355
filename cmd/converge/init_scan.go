package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/registry"
)

// kubebuilderProject is what converge init reads from a kubebuilder (v4,
// single-group) layout: the PROJECT file, the API packages, the CRD
// manifests and the reconcilers in internal/controller.
type kubebuilderProject struct {
	root        string
	repo        string   // PROJECT's repo: the module path
	APIs        []apiPkg // the scheme's packages, by import path
	Reconcilers []reconciler
	Pkg         string // internal/controller's package name
	HasTestMain bool   // a test file there declares TestMain already
	// ImageFields are the CRDs' free-form image fields, per plural.
	ImageFields map[string][]string
}

// apiPkg is one API group-version package and its import alias
// (kubebuilder's own: group and version, "webappv1").
type apiPkg struct{ Path, Alias string }

// reconciler is a type with a SetupWithManager method and the fields
// converge init knows how to fill from the manager.
type reconciler struct {
	Name                     string
	Client, Scheme, Recorder bool
	OtherFields              []string // exported fields init leaves zero
}

// projectFile is the part of kubebuilder's PROJECT file init reads.
type projectFile struct {
	Repo      string `json:"repo"`
	Resources []struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
		Path    string `json:"path"`
		API     *struct {
			CRDVersion string `json:"crdVersion"`
		} `json:"api"`
	} `json:"resources"`
}

// Where a kubebuilder project keeps what init reads.
const (
	projectFileName = "PROJECT"
	crdDir          = "config/crd/bases"
	controllerDir   = "internal/controller"
)

// readKubebuilderProject reads root as a kubebuilder project; its error
// names the first thing missing, in one line.
func readKubebuilderProject(root string) (*kubebuilderProject, error) {
	data, err := os.ReadFile(filepath.Join(root, projectFileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s has no PROJECT file: not a kubebuilder project (run converge init at its root)", root)
	}
	if err != nil {
		return nil, err
	}
	var pf projectFile
	if err := yaml.Unmarshal(data, &pf); err != nil {
		return nil, fmt.Errorf("PROJECT: %v", err)
	}
	if pf.Repo == "" {
		return nil, fmt.Errorf("PROJECT names no repo (the module path)")
	}
	p := &kubebuilderProject{root: root, repo: pf.Repo}
	seen := map[string]bool{}
	for _, r := range pf.Resources {
		// Built-in kinds (k8s.io/api) are in client-go's scheme already.
		if r.API == nil || r.Path == "" || seen[r.Path] {
			continue
		}
		seen[r.Path] = true
		p.APIs = append(p.APIs, apiPkg{Path: r.Path, Alias: aliasOf(r.Group, r.Version)})
	}
	if len(p.APIs) == 0 {
		return nil, fmt.Errorf("PROJECT lists no API of its own (run kubebuilder create api first)")
	}
	if dirs, _ := filepath.Glob(filepath.Join(root, "api", "*")); len(dirs) == 0 {
		return nil, fmt.Errorf("%s has no api/*/ directory (run kubebuilder create api first)", root)
	}
	crds, err := registry.ReadCRDs(filepath.Join(root, crdDir))
	if err != nil || len(crds) == 0 {
		return nil, fmt.Errorf("no CRD manifests in %s (run make manifests first)", crdDir)
	}
	p.ImageFields = imageFields(crds)
	if err := p.readControllers(); err != nil {
		return nil, err
	}
	return p, nil
}

// aliasOf is kubebuilder's import alias of a group-version package.
func aliasOf(group, version string) string {
	a := strings.ToLower(strings.Map(func(r rune) rune {
		if r == '.' || r == '-' {
			return -1
		}
		return r
	}, group+version))
	if a == "" || !token.IsIdentifier(a) {
		return "api" + version
	}
	return a
}

// readControllers finds, in internal/controller's non-test files, the
// types with a SetupWithManager method, and whether a test file there
// declares TestMain.
func (p *kubebuilderProject) readControllers() error {
	dir := filepath.Join(p.root, controllerDir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(files) == 0 {
		return fmt.Errorf("no Go files in %s (run kubebuilder create api --controller first)", controllerDir)
	}
	fset := token.NewFileSet()
	structs := map[string]*ast.StructType{}
	setups := map[string]bool{}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		test := strings.HasSuffix(path, "_test.go")
		if !test {
			p.Pkg = f.Name.Name
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if test && d.Recv == nil && d.Name.Name == "TestMain" {
					p.HasTestMain = true
				}
				if !test && d.Recv != nil && d.Name.Name == "SetupWithManager" {
					setups[receiverType(d.Recv.List[0].Type)] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && !test {
						if st, ok := ts.Type.(*ast.StructType); ok {
							structs[ts.Name.Name] = st
						}
					}
				}
			}
		}
	}
	for name := range setups {
		if st, ok := structs[name]; ok {
			p.Reconcilers = append(p.Reconcilers, reconcilerOf(name, st))
		}
	}
	sort.Slice(p.Reconcilers, func(i, j int) bool { return p.Reconcilers[i].Name < p.Reconcilers[j].Name })
	if len(p.Reconcilers) == 0 {
		return fmt.Errorf("no type with a SetupWithManager method in %s/*.go", controllerDir)
	}
	return nil
}

func receiverType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// reconcilerOf reads which of kubebuilder's usual fields a reconciler
// has: the embedded client.Client, Scheme and an event Recorder.
func reconcilerOf(name string, st *ast.StructType) reconciler {
	r := reconciler{Name: name}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			if sel, ok := f.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Client" {
				r.Client = true
			}
			continue
		}
		for _, n := range f.Names {
			switch n.Name {
			case "Client":
				r.Client = true
			case "Scheme":
				r.Scheme = true
			case "Recorder":
				r.Recorder = true
			default:
				if n.IsExported() {
					r.OtherFields = append(r.OtherFields, n.Name)
				}
			}
		}
	}
	return r
}

// imageFields finds, per CRD plural, the string fields named image (or
// ending in Image) under spec, but for an enum's (its author listed the
// images): the schema allows any string, or any a pattern allows, but a
// node runs only an image it can pull, so init draws them from real
// image names.
func imageFields(crds []*apiextensionsv1.CustomResourceDefinition) map[string][]string {
	out := map[string][]string{}
	for _, c := range crds {
		for _, v := range c.Spec.Versions {
			if !v.Storage || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			spec, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]
			if !ok {
				continue
			}
			var paths []string
			walkImages("spec", &spec, &paths)
			sort.Strings(paths)
			if len(paths) > 0 {
				out[c.Spec.Names.Plural] = paths
			}
		}
	}
	return out
}

func walkImages(path string, s *apiextensionsv1.JSONSchemaProps, out *[]string) {
	for name, prop := range s.Properties {
		p := path + "." + name
		switch {
		case prop.Type == "string" && len(prop.Enum) == 0 &&
			(name == "image" || strings.HasSuffix(name, "Image")):
			*out = append(*out, p)
		case prop.Type == "object":
			walkImages(p, &prop, out)
		case prop.Type == "array" && prop.Items != nil && prop.Items.Schema != nil && prop.Items.Schema.Type == "object":
			walkImages(p+"[*]", prop.Items.Schema, out)
		}
	}
}
