package containerd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// mountinfo lists the mount points and filesystem types of this process.
func mountinfo() (points, types []string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source super
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		fstype := ""
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) {
				fstype = fields[i+1]
				break
			}
		}
		points = append(points, unescapeMount(fields[4]))
		types = append(types, fstype)
	}
	return points, types, sc.Err()
}

// unescapeMount undoes the octal escapes (\040 for space) of mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unmountUnder lazily unmounts everything mounted below dir, deepest first:
// rootfs mounts of tasks the daemon could not clean up.
func unmountUnder(dir string) error {
	points, _, err := mountinfo()
	if err != nil {
		return fmt.Errorf("containerd: read mounts: %w", err)
	}
	var under []string
	for _, p := range points {
		if strings.HasPrefix(p, dir+"/") {
			under = append(under, p)
		}
	}
	sort.Slice(under, func(i, j int) bool { return len(under[i]) > len(under[j]) })
	var errs []error
	for _, p := range under {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("containerd: unmount %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// removeCgroups removes the given cgroup paths, in order, from every
// mounted cgroup hierarchy. runc removes a container's own cgroup, but the
// parents it made stay behind; only empty directories can go, so a busy
// one is left alone.
func removeCgroups(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	points, types, err := mountinfo()
	if err != nil {
		return fmt.Errorf("containerd: read mounts: %w", err)
	}
	var roots []string
	for i, t := range types {
		if t == "cgroup" || t == "cgroup2" {
			roots = append(roots, points[i])
		}
	}
	for _, p := range paths {
		rel := filepath.Clean("/" + p)
		if rel == "/" {
			continue
		}
		for _, root := range roots {
			// Errors are expected: the path may not exist in this
			// hierarchy, or another daemon's container may still use it.
			syscall.Rmdir(filepath.Join(root, rel))
		}
	}
	return nil
}
