// Package containerd runs converge's containers for real, over a containerd
// daemon (1.6 or later) through the containerd v2 Go client. Linux and root
// only. Daemon starts a private daemon; Runtime is a container.Runtime for
// one node; ImportArchive loads image archives, as there is no registry.
//
// Guarantees of Runtime, beyond those of container.Runtime:
//   - It works in one containerd namespace ("converge" by default). Each
//     container carries labels with its node, pod namespace/name/uid,
//     container name, attempt, start time and, once stopped, exit code and
//     finish time; List and Status rebuild everything from them, so a new
//     Runtime (a restarted kubelet) adopts what an old one started.
//   - Several runtimes, one per node, can share a daemon: each filters by
//     its node label and treats other nodes' ids as not found.
//   - Containers use the host network namespace, since there is no CNI:
//     the workload binds its own POD_IP (any 127.0.0.0/8 address works).
//   - A container's stdout and stderr go to LogPath(id), written by the
//     shim itself, so no FIFO needs a reader and a gone kubelet never
//     blocks a process.
//   - Exit codes are the task's exit status; a process killed by a signal
//     (`kill -9` of its pid) shows as exited with 128+signal.
//   - Stop records the exit on the container before deleting the task, so
//     an interrupted Stop loses nothing and a repeated one is a no-op.
//   - Remove deletes the container, its snapshot and its log.
//   - A Start that fails half-way removes what it made.
//   - An image must already be in the namespace (ImportArchive); a missing
//     one is ErrImageNotPresent with a Waiting/ErrImagePull status.
//     Names are matched exactly, with no docker.io normalisation.
//
// Guarantees of Daemon:
//   - Everything it writes lives under its directory (config, root, state,
//     socket, log), except what containerd 1.6 hard-codes: shim sockets in
//     /run/containerd/s and runc state in /run/containerd/runc, keyed by
//     namespace and id.
//   - It disables the CRI plugin and the snapshotters converge does not use.
//   - Close deletes every task, container and snapshot in every namespace,
//     stops the daemon, unmounts leftovers under the directory, removes the
//     cgroup directories its containers used and deletes its files.
//   - A missing containerd, shim or runc binary is ErrNotInstalled.
package containerd
