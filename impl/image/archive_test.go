package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// layout is an archive read back: every tar entry by name, in order.
type layout struct {
	names []string
	files map[string][]byte
	heads map[string]*tar.Header
}

func readTar(t *testing.T, b []byte) layout {
	t.Helper()
	l := layout{files: map[string][]byte{}, heads: map[string]*tar.Header{}}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return l
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		l.names = append(l.names, h.Name)
		l.files[h.Name] = body
		l.heads[h.Name] = h
	}
}

// blob returns the blob a descriptor names, checking its digest and size.
func (l layout) blob(t *testing.T, d Descriptor) []byte {
	t.Helper()
	b, ok := l.files[blobPath(d.Digest)]
	if !ok {
		t.Fatalf("blob %s missing", d.Digest)
	}
	if got := digestOf(b); got != d.Digest {
		t.Fatalf("blob %s has digest %s", d.Digest, got)
	}
	if int64(len(b)) != d.Size {
		t.Fatalf("blob %s has size %d, descriptor says %d", d.Digest, len(b), d.Size)
	}
	return b
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %T: %v", v, err)
	}
	return v
}

func sample() BuildOptions {
	return BuildOptions{
		Name: "converge.local/sample:v2",
		Files: map[string]File{
			"/usr/bin/app":    {Content: []byte("#!/bin/true\n"), Mode: 0o755},
			"etc/app/conf":    {Content: []byte("x=1\n")},
			"etc/app/z/empty": {},
		},
		Entrypoint: []string{"/usr/bin/app"},
		Cmd:        []string{"--flag"},
	}
}

func build(t *testing.T, opts BuildOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := BuildArchive(&buf, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBuildArchiveStructure(t *testing.T) {
	l := readTar(t, build(t, sample()))
	if string(l.files["oci-layout"]) != `{"imageLayoutVersion":"1.0.0"}` {
		t.Fatalf("oci-layout = %q", l.files["oci-layout"])
	}
	if !slices.IsSorted(l.names) {
		t.Fatalf("entries not sorted: %v", l.names)
	}
	idx := decode[Index](t, l.files["index.json"])
	if idx.SchemaVersion != 2 || idx.MediaType != MediaTypeIndex || len(idx.Manifests) != 1 {
		t.Fatalf("index = %+v", idx)
	}
	top := idx.Manifests[0]
	if top.Annotations[AnnotationImageName] != "converge.local/sample:v2" || top.Annotations[AnnotationRefName] != "v2" {
		t.Fatalf("annotations = %v", top.Annotations)
	}
	if top.Platform == nil || top.Platform.OS != "linux" || top.Platform.Architecture != runtime.GOARCH {
		t.Fatalf("platform = %+v", top.Platform)
	}
	m := decode[Manifest](t, l.blob(t, top))
	if m.MediaType != MediaTypeManifest || m.Config.MediaType != MediaTypeConfig || len(m.Layers) != 1 || m.Layers[0].MediaType != MediaTypeLayer {
		t.Fatalf("manifest = %+v", m)
	}
	cfg := decode[Config](t, l.blob(t, m.Config))
	if !slices.Equal(cfg.Config.Entrypoint, []string{"/usr/bin/app"}) || !slices.Equal(cfg.Config.Cmd, []string{"--flag"}) ||
		!slices.Equal(cfg.Config.Env, []string{defaultPath}) || cfg.Config.WorkingDir != "/" || cfg.OS != "linux" {
		t.Fatalf("config = %+v", cfg)
	}
	zr, err := gzip.NewReader(bytes.NewReader(l.blob(t, m.Layers[0])))
	if err != nil {
		t.Fatal(err)
	}
	layerTar, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.RootFS.DiffIDs) != 1 || cfg.RootFS.DiffIDs[0] != digestOf(layerTar) {
		t.Fatalf("diff_ids %v do not match the layer %s", cfg.RootFS.DiffIDs, digestOf(layerTar))
	}
	layer := readTar(t, layerTar)
	wantNames := []string{"etc/", "etc/app/", "etc/app/conf", "etc/app/z/", "etc/app/z/empty", "usr/", "usr/bin/", "usr/bin/app"}
	if !slices.Equal(layer.names, wantNames) {
		t.Fatalf("layer entries = %v, want %v", layer.names, wantNames)
	}
	if h := layer.heads["usr/bin/app"]; h.Mode != 0o755 || h.Uid != 0 || !h.ModTime.Equal(epoch) || string(layer.files["usr/bin/app"]) != "#!/bin/true\n" {
		t.Fatalf("usr/bin/app header = %+v", h)
	}
	if h := layer.heads["etc/app/conf"]; h.Mode != 0o644 {
		t.Fatalf("default mode = %o", h.Mode)
	}
	if h := layer.heads["etc/"]; h.Typeflag != tar.TypeDir || h.Mode != 0o755 {
		t.Fatalf("dir header = %+v", h)
	}
}

func TestBuildArchiveIsDeterministic(t *testing.T) {
	a, b := build(t, sample()), build(t, sample())
	if !bytes.Equal(a, b) {
		t.Fatal("same options gave different bytes")
	}
	changed := sample()
	changed.Files["etc/app/conf"] = File{Content: []byte("x=2\n")}
	if bytes.Equal(a, build(t, changed)) {
		t.Fatal("different content gave the same bytes")
	}
}

func TestBuildArchiveDefaultsTag(t *testing.T) {
	opts := sample()
	opts.Name = "localhost:5000/app"
	idx := decode[Index](t, readTar(t, build(t, opts)).files["index.json"])
	if got := idx.Manifests[0].Annotations; got[AnnotationImageName] != "localhost:5000/app:latest" || got[AnnotationRefName] != "latest" {
		t.Fatalf("annotations = %v", got)
	}
}

func TestBuildArchiveRejectsBadOptions(t *testing.T) {
	file := map[string]File{"a": {}}
	for name, opts := range map[string]BuildOptions{
		"no name":        {Files: file},
		"space in name":  {Name: "a b:v1", Files: file},
		"empty tag":      {Name: "a:", Files: file},
		"digest ref":     {Name: "a@sha256:00", Files: file},
		"no files":       {Name: "a:v1"},
		"dotdot":         {Name: "a:v1", Files: map[string]File{"../etc/passwd": {}}},
		"inner dotdot":   {Name: "a:v1", Files: map[string]File{"x/../../y": {}}},
		"root":           {Name: "a:v1", Files: map[string]File{"/": {}}},
		"duplicate":      {Name: "a:v1", Files: map[string]File{"/a": {}, "a": {}}},
		"file is dir":    {Name: "a:v1", Files: map[string]File{"a": {}, "a/b": {}}},
		"non-perm modes": {Name: "a:v1", Files: map[string]File{"a": {Mode: 0o4755 | 1<<31}}},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := BuildArchive(&buf, opts)
			if !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("err = %v, want ErrInvalidOptions", err)
			}
			if buf.Len() != 0 {
				t.Fatalf("wrote %d bytes for invalid options", buf.Len())
			}
		})
	}
}

func TestBuildEchoPacksStaticBinary(t *testing.T) {
	var a, b bytes.Buffer
	if err := BuildEcho(context.Background(), &a, ""); err != nil {
		t.Fatal(err)
	}
	l := readTar(t, a.Bytes())
	idx := decode[Index](t, l.files["index.json"])
	if got := idx.Manifests[0].Annotations[AnnotationImageName]; got != EchoImage {
		t.Fatalf("image name = %q", got)
	}
	m := decode[Manifest](t, l.blob(t, idx.Manifests[0]))
	cfg := decode[Config](t, l.blob(t, m.Config))
	if !slices.Equal(cfg.Config.Entrypoint, []string{echoBinary}) {
		t.Fatalf("entrypoint = %v", cfg.Config.Entrypoint)
	}
	zr, err := gzip.NewReader(bytes.NewReader(l.blob(t, m.Layers[0])))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	bin := readTar(t, raw).files[strings.TrimPrefix(echoBinary, "/")]
	if !bytes.HasPrefix(bin, []byte("\x7fELF")) {
		t.Fatal("layer does not hold an ELF binary")
	}
	exe, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range exe.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("binary is dynamically linked (has PT_INTERP)")
		}
	}
	if err := BuildEcho(context.Background(), &b, ""); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two builds of the same source differ")
	}
}

func TestBuildEchoRejectsBadName(t *testing.T) {
	if err := BuildEcho(context.Background(), io.Discard, "bad name"); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("err = %v", err)
	}
}
