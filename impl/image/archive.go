package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

// ErrInvalidOptions reports BuildOptions that cannot make an image.
var ErrInvalidOptions = errors.New("image: invalid build options")

// Media types and annotations written into the archive.
const (
	MediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	MediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	MediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"

	// AnnotationImageName carries the full reference; containerd's importer
	// names the image after it.
	AnnotationImageName = "io.containerd.image.name"
	// AnnotationRefName carries the tag, as the OCI image layout specifies.
	AnnotationRefName = "org.opencontainers.image.ref.name"
)

// epoch is the modification time of every tar entry, so bytes depend only on
// content.
var epoch = time.Unix(0, 0).UTC()

// File is one regular file in the image.
type File struct {
	Content []byte
	// Mode holds the permission bits; 0 means 0644.
	Mode fs.FileMode
}

// BuildOptions describe a single-layer image. Only Name and Files are
// required.
type BuildOptions struct {
	// Name is the image reference, for example "converge.local/echo:v1".
	// A name without a tag gets ":latest".
	Name string
	// Files maps a path inside the image ("bin/app" or "/bin/app") to its
	// content. Parent directories are created with mode 0755.
	Files map[string]File
	// Entrypoint and Cmd are the process the container runs by default.
	Entrypoint, Cmd []string
	// Env holds "KEY=value" entries. Default: a standard PATH.
	Env []string
	// WorkingDir defaults to "/".
	WorkingDir string
	// OS and Architecture default to "linux" and the running GOARCH.
	OS, Architecture string
}

// Descriptor points at one blob, as in the OCI image spec.
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Platform    *Platform         `json:"platform,omitempty"`
}

// Platform is the OS and CPU an image runs on.
type Platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

// Index is index.json.
type Index struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []Descriptor `json:"manifests"`
}

// Manifest is the image manifest blob.
type Manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        Descriptor   `json:"config"`
	Layers        []Descriptor `json:"layers"`
}

// Config is the image configuration blob.
type Config struct {
	Architecture string        `json:"architecture"`
	OS           string        `json:"os"`
	Config       ProcessConfig `json:"config"`
	RootFS       RootFS        `json:"rootfs"`
}

// ProcessConfig is the default process of a container made from the image.
type ProcessConfig struct {
	Env        []string `json:"Env,omitempty"`
	Entrypoint []string `json:"Entrypoint,omitempty"`
	Cmd        []string `json:"Cmd,omitempty"`
	WorkingDir string   `json:"WorkingDir,omitempty"`
}

// RootFS lists the uncompressed digests of the layers.
type RootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

const defaultPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// BuildArchive writes the image described by opts to w as an OCI image
// layout tar. Invalid options write nothing.
func BuildArchive(w io.Writer, opts BuildOptions) error {
	name, tag, err := splitName(opts.Name)
	if err != nil {
		return err
	}
	files, err := cleanFiles(opts.Files)
	if err != nil {
		return err
	}
	layerTar, err := buildLayerTar(files)
	if err != nil {
		return err
	}
	layer, err := gzipBytes(layerTar)
	if err != nil {
		return err
	}
	platform := Platform{OS: opts.OS, Architecture: opts.Architecture}
	if platform.OS == "" {
		platform.OS = "linux"
	}
	if platform.Architecture == "" {
		platform.Architecture = runtime.GOARCH
	}
	env := opts.Env
	if env == nil {
		env = []string{defaultPath}
	}
	workdir := opts.WorkingDir
	if workdir == "" {
		workdir = "/"
	}
	config, err := json.Marshal(Config{
		Architecture: platform.Architecture,
		OS:           platform.OS,
		Config:       ProcessConfig{Env: env, Entrypoint: opts.Entrypoint, Cmd: opts.Cmd, WorkingDir: workdir},
		RootFS:       RootFS{Type: "layers", DiffIDs: []string{digestOf(layerTar)}},
	})
	if err != nil {
		return fmt.Errorf("image: encode config: %w", err)
	}
	manifest, err := json.Marshal(Manifest{
		SchemaVersion: 2,
		MediaType:     MediaTypeManifest,
		Config:        describe(MediaTypeConfig, config),
		Layers:        []Descriptor{describe(MediaTypeLayer, layer)},
	})
	if err != nil {
		return fmt.Errorf("image: encode manifest: %w", err)
	}
	top := describe(MediaTypeManifest, manifest)
	top.Annotations = map[string]string{AnnotationImageName: name, AnnotationRefName: tag}
	top.Platform = &platform
	index, err := json.Marshal(Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Manifests: []Descriptor{top}})
	if err != nil {
		return fmt.Errorf("image: encode index: %w", err)
	}

	entries := map[string][]byte{
		"oci-layout": []byte(`{"imageLayoutVersion":"1.0.0"}`),
		"index.json": index,
	}
	for _, blob := range [][]byte{layer, config, manifest} {
		entries[blobPath(digestOf(blob))] = blob
	}
	return writeTar(w, []string{"blobs", "blobs/sha256"}, entries)
}

// splitName validates a reference and returns it with a tag, and the tag.
func splitName(name string) (full, tag string, err error) {
	if name == "" || strings.ContainsAny(name, " \t\r\n") || strings.Contains(name, "@") {
		return "", "", fmt.Errorf("%w: image name %q must be a non-empty reference without spaces or digest", ErrInvalidOptions, name)
	}
	last := name[strings.LastIndex(name, "/")+1:]
	if i := strings.LastIndex(last, ":"); i >= 0 {
		if i == len(last)-1 || i == 0 {
			return "", "", fmt.Errorf("%w: image name %q has an empty name or tag", ErrInvalidOptions, name)
		}
		return name, last[i+1:], nil
	}
	if last == "" {
		return "", "", fmt.Errorf("%w: image name %q ends with /", ErrInvalidOptions, name)
	}
	return name + ":latest", "latest", nil
}

// cleanFiles turns user paths into clean relative paths inside the root.
func cleanFiles(in map[string]File) (map[string]File, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("%w: no files", ErrInvalidOptions)
	}
	out := make(map[string]File, len(in))
	for p, f := range in {
		if strings.Contains(p, "\x00") {
			return nil, fmt.Errorf("%w: path %q contains NUL", ErrInvalidOptions, p)
		}
		rel := strings.TrimPrefix(path.Clean("/"+p), "/")
		if rel == "" || slices.Contains(strings.Split(p, "/"), "..") {
			return nil, fmt.Errorf("%w: path %q is not a file inside the image", ErrInvalidOptions, p)
		}
		if _, dup := out[rel]; dup {
			return nil, fmt.Errorf("%w: path %q given twice", ErrInvalidOptions, p)
		}
		if f.Mode&^fs.ModePerm != 0 {
			return nil, fmt.Errorf("%w: path %q: mode %v is not plain permission bits", ErrInvalidOptions, p, f.Mode)
		}
		out[rel] = f
	}
	for rel := range out {
		for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
			if _, clash := out[dir]; clash {
				return nil, fmt.Errorf("%w: %q is both a file and a directory", ErrInvalidOptions, dir)
			}
		}
	}
	return out, nil
}

// buildLayerTar packs files and their parent directories, sorted by path.
func buildLayerTar(files map[string]File) ([]byte, error) {
	dirs := map[string]bool{}
	for rel := range files {
		for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
			dirs[dir] = true
		}
	}
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	var buf bytes.Buffer
	entries := make(map[string][]byte, len(files))
	modes := make(map[string]fs.FileMode, len(files))
	for rel, f := range files {
		entries[rel] = f.Content
		modes[rel] = f.Mode
	}
	if err := writeTarModes(&buf, names, entries, modes); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeTar(w io.Writer, dirs []string, files map[string][]byte) error {
	return writeTarModes(w, dirs, files, nil)
}

// writeTarModes writes directories and files in one sorted order, so a
// directory always precedes what it holds.
func writeTarModes(w io.Writer, dirs []string, files map[string][]byte, modes map[string]fs.FileMode) error {
	type entry struct {
		name string
		dir  bool
	}
	all := make([]entry, 0, len(dirs)+len(files))
	for _, d := range dirs {
		all = append(all, entry{name: d, dir: true})
	}
	for f := range files {
		all = append(all, entry{name: f})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	tw := tar.NewWriter(w)
	for _, e := range all {
		hdr := &tar.Header{Name: e.name, ModTime: epoch, Format: tar.FormatPAX}
		if e.dir {
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, e.name+"/", 0o755
		} else {
			hdr.Typeflag, hdr.Size, hdr.Mode = tar.TypeReg, int64(len(files[e.name])), 0o644
			if m := modes[e.name]; m != 0 {
				hdr.Mode = int64(m)
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("image: write %s: %w", e.name, err)
		}
		if !e.dir {
			if _, err := tw.Write(files[e.name]); err != nil {
				return fmt.Errorf("image: write %s: %w", e.name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("image: close tar: %w", err)
	}
	return nil
}

func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf) // zero header: no name, no mtime
	if _, err := zw.Write(b); err != nil {
		return nil, fmt.Errorf("image: gzip layer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("image: gzip layer: %w", err)
	}
	return buf.Bytes(), nil
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func describe(mediaType string, blob []byte) Descriptor {
	return Descriptor{MediaType: mediaType, Digest: digestOf(blob), Size: int64(len(blob))}
}

// blobPath is where the OCI layout stores the blob with digest d.
func blobPath(d string) string {
	return "blobs/sha256/" + strings.TrimPrefix(d, "sha256:")
}
