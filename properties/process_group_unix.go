//go:build unix

package properties

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, so that a kill takes
// its children too (a `go run`, a shell script that execs nothing).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to cmd's process group.
func killGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
