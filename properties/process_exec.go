package properties

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// operatorProcess is the operator's process, started again after each
// crash. Its stdout and stderr go to one log file, each start marked.
type operatorProcess struct {
	argv    []string
	dir     string
	env     []string
	logPath string

	mu     sync.Mutex
	log    *os.File
	cmd    *exec.Cmd
	exited chan struct{} // closed once the current process has been waited for
	err    error         // its Wait's
	starts int
	killed bool // the check killed it: a crash fault, not the operator's doing
}

// start starts the process (again).
func (p *operatorProcess) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.log == nil {
		f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		p.log = f
	}
	p.starts++
	fmt.Fprintf(p.log, "--- converge: start %d: %s\n", p.starts, strings.Join(p.argv, " "))
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stdout, cmd.Stderr = p.log, p.log
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the operator %q: %w", p.argv[0], err)
	}
	p.cmd, p.killed, p.err = cmd, false, nil
	exited := make(chan struct{})
	p.exited = exited
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(exited)
	}()
	return nil
}

// kill sends SIGKILL to the process and its children; it does not wait.
func (p *operatorProcess) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.isExited() {
		return
	}
	p.killed = true
	killGroup(p.cmd)
}

// killAndWait kills the process and waits for it to be gone.
func (p *operatorProcess) killAndWait() {
	p.kill()
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
	if exited != nil {
		<-exited
	}
}

func (p *operatorProcess) isExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitState says whether the current process has exited, whether the
// check killed it, and how it ended.
func (p *operatorProcess) exitState() (exited, killed bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || !p.isExited() {
		return false, false, nil
	}
	err = p.err
	if err == nil {
		err = errors.New("exit status 0")
	}
	return true, p.killed, err
}

// close kills the process and closes its log.
func (p *operatorProcess) close() {
	p.killAndWait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.log != nil {
		_ = p.log.Close()
		p.log = nil
	}
}
