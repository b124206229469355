package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/converge-dev/converge/impl/container/containerd"
	"github.com/converge-dev/converge/impl/image"
)

func init() {
	register(command{name: "image", summary: "build the echo workload image archive, or import one into containerd", run: runImage,
		examples: []string{
			"converge image build -o echo.tar",
			"converge image import echo.tar --address /run/containerd/containerd.sock",
		}})
}

// defaultContainerdSocket is where a system containerd listens.
const defaultContainerdSocket = "/run/containerd/containerd.sock"

const imageUsage = `build [-o FILE] [--name NAME] | import FILE [--address SOCKET] [--namespace NS]`

func runImage(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("image needs a subcommand: %s", imageUsage)
	}
	switch args[0] {
	case "build":
		return runImageBuild(args[1:], stdout, stderr)
	case "import":
		return runImageImport(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintf(stdout, "Usage: converge image %s\n", imageUsage)
		printExamples(stdout, commands["image"].examples, "image")
		return flag.ErrHelp
	}
	return usageError("unknown image subcommand %q (want build or import)", args[0])
}

func runImageBuild(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("image build", "[-o FILE] [--name NAME]", stderr)
	out := fs.String("o", "echo.tar", "where to write the OCI image archive")
	name := fs.String("name", image.EchoImage, "the image reference recorded in the archive")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("image build takes no arguments, got %q", fs.Args())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	n, err := writeAtomically(*out, func(w io.Writer) error { return image.BuildEcho(ctx, w, *name) })
	if errors.Is(err, image.ErrInvalidOptions) {
		return usageError("%v", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: image %s, %d bytes\n", *out, *name, n)
	return nil
}

// writeAtomically writes through a temporary file in the same directory, so
// a failed build never leaves a truncated archive behind.
func writeAtomically(path string, write func(io.Writer) error) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return 0, err
	}
	info, err := tmp.Stat()
	if err != nil {
		tmp.Close()
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return 0, err
	}
	return info.Size(), os.Rename(tmp.Name(), path)
}

func runImageImport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("image import", "FILE [--address SOCKET] [--namespace NS]", stderr)
	address := fs.String("address", defaultContainerdSocket, "the containerd socket")
	namespace := fs.String("namespace", containerd.Namespace, "the containerd namespace to import into")
	var files []string
	// Flags may come before or after FILE.
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return usageError("image import takes one archive, got %d", len(files))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	names, err := containerd.ImportArchive(ctx, *address, files[0], containerd.WithNamespace(*namespace))
	if err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintf(stdout, "imported %s into namespace %s\n", n, *namespace)
	}
	return nil
}
