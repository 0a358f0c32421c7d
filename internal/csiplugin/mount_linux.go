package csiplugin

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// bindMount mounts src onto dst (created when missing); a dst that is
// already a mount point is left as it is, so retried calls succeed.
func bindMount(src, dst string, readOnly bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	mounted, err := isMountPoint(dst)
	if err != nil || mounted {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind mount %s on %s: %w", src, dst, err)
	}
	if readOnly {
		// A bind mount takes its flags from the first mount call only;
		// read-only needs a remount.
		if err := unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			_ = unix.Unmount(dst, 0)
			return fmt.Errorf("remounting %s read-only: %w", dst, err)
		}
	}
	return nil
}

// unmount unmounts path if it is a mount point; a missing path or one not
// mounted is success (unpublish and unstage must be idempotent).
func unmount(path string) error {
	mounted, err := isMountPoint(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !mounted) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := unix.Unmount(path, 0); err != nil {
		return fmt.Errorf("unmounting %s: %w", path, err)
	}
	return nil
}

// isMountPoint reports whether path is a mount point of this process's
// mount namespace. Device numbers cannot tell: a bind mount of a directory
// on the same filesystem keeps the device, so it reads mountinfo.
func isMountPoint(path string) (bool, error) {
	if _, err := os.Stat(path); err != nil {
		return false, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, err
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64*1024), 1024*1024)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) > 4 && unescapeMountPath(fields[4]) == real {
			return true, nil
		}
	}
	return false, s.Err()
}

// unescapeMountPath undoes mountinfo's octal escapes (space, tab, newline
// and backslash appear as \040, \011, \012 and \134).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
