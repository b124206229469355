// Package image builds OCI image archives in pure Go, so converge can run real
// containers on a machine with no registry: the archive is imported straight
// into containerd.
//
// Guarantees:
//   - BuildArchive writes an OCI image layout as one tar stream: oci-layout,
//     index.json and blobs/sha256/<hex> holding one gzip layer, the image
//     config and the manifest. Every descriptor's digest and size match the
//     blob it names, and the config's diff_ids match the uncompressed layer.
//   - index.json names the image with both io.containerd.image.name (the full
//     reference) and org.opencontainers.image.ref.name (its tag), which is
//     what containerd's importer reads.
//   - The same options give the same bytes: entries are sorted, modification
//     times are fixed, owners are root and gzip carries no name or time.
//   - Parent directories of every file are created in the layer.
//   - Bad options (no name, a path escaping the root, no files) are rejected
//     with ErrInvalidOptions before anything is written.
//   - BuildEcho compiles cmd/converge-echo statically (CGO_ENABLED=0,
//     -trimpath, no VCS stamp) and packs it as EchoImage; it needs the Go
//     toolchain and the converge source tree.
package image
