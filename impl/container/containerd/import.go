package containerd

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"
)

// ImportArchive imports the OCI or Docker image archive at path into the
// daemon at address and unpacks it for the snapshotter. It returns the
// names of the imported images, sorted.
func ImportArchive(ctx context.Context, address, path string, opts ...Option) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("containerd: %w", err)
	}
	defer f.Close()
	return ImportReader(ctx, address, f, opts...)
}

// ImportReader is ImportArchive for an archive read from r.
func ImportReader(ctx context.Context, address string, r io.Reader, opts ...Option) ([]string, error) {
	o := buildOptions(opts)
	c, err := dial(address, o)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return importInto(namespaces.WithNamespace(ctx, o.namespace), c, r, o.snapshotter)
}

// ImportArchive imports an archive through the runtime's own connection,
// into its namespace and for its snapshotter.
func (rt *Runtime) ImportArchive(ctx context.Context, path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("containerd: %w", err)
	}
	defer f.Close()
	return importInto(rt.ctx(ctx), rt.client, f, rt.opts.snapshotter)
}

func importInto(ctx context.Context, c *client.Client, r io.Reader, snapshotter string) ([]string, error) {
	imgs, err := c.Import(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("containerd: import: %w", err)
	}
	if len(imgs) == 0 {
		return nil, fmt.Errorf("containerd: import: the archive names no image (no %s annotation or repo tag)", "io.containerd.image.name")
	}
	names := make([]string, 0, len(imgs))
	for _, meta := range imgs {
		img := client.NewImage(c, meta)
		if err := img.Unpack(ctx, snapshotter); err != nil {
			return nil, fmt.Errorf("containerd: unpack %s: %w", meta.Name, err)
		}
		names = append(names, meta.Name)
	}
	sort.Strings(names)
	return names, nil
}
