package devagent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procStat is the part of /proc/<pid>/stat this package needs.
type procStat struct {
	State     byte
	PPID      int
	PGRP      int
	StartTime uint64 // clock ticks after boot; identifies a PID incarnation
}

// readProcStat parses /proc/<pid>/stat.
func readProcStat(pid int) (procStat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(string(data))
}

func parseProcStat(s string) (procStat, error) {
	// The command name (field 2) is in parentheses and may itself contain
	// spaces and parentheses, so split after the last ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, errors.New("malformed stat")
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); starttime is field 22.
	if len(f) < 20 {
		return procStat{}, errors.New("malformed stat")
	}
	var st procStat
	st.State = f[0][0]
	var err error
	if st.PPID, err = strconv.Atoi(f[1]); err != nil {
		return procStat{}, err
	}
	if st.PGRP, err = strconv.Atoi(f[2]); err != nil {
		return procStat{}, err
	}
	if st.StartTime, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return procStat{}, err
	}
	return st, nil
}

// processAlive reports whether pid is a live (non-zombie) process. When
// startTime is non-zero the process must also have that start time, so a
// recycled PID is never mistaken for the original process.
func processAlive(pid int, startTime uint64) bool {
	if pid <= 0 {
		return false
	}
	st, err := readProcStat(pid)
	if err != nil {
		return false
	}
	if st.State == 'Z' || st.State == 'X' {
		return false
	}
	return startTime == 0 || st.StartTime == startTime
}

// waitGone polls until processAlive turns false or the timeout elapses.
func waitGone(pid int, startTime uint64, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if !processAlive(pid, startTime) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// listPIDs returns the numeric entries of /proc.
func listPIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// groupMembers returns the live processes whose process group is pgid.
func groupMembers(pgid int) []int {
	pids, _ := listPIDs()
	var out []int
	for _, pid := range pids {
		st, err := readProcStat(pid)
		if err == nil && st.PGRP == pgid && st.State != 'Z' {
			out = append(out, pid)
		}
	}
	return out
}

// protectedPIDs are this process and its ancestors: they must never be killed
// even if, say, the CLI was run with the data dir on its command line.
func protectedPIDs() map[int]bool {
	prot := map[int]bool{0: true, 1: true}
	pid := os.Getpid()
	for i := 0; i < 64 && pid > 1; i++ {
		prot[pid] = true
		st, err := readProcStat(pid)
		if err != nil {
			break
		}
		pid = st.PPID
	}
	return prot
}

// referencesDir reports whether a process belongs to the agent owning dir:
// it references dir through its working directory, root directory, command
// line or environment, or it runs in the cgroup of one of allocIDs. These are
// the traces left by Nomad's logmon/executor plugins (started with the
// agent's working directory, which is the data dir, and task paths in their
// args), by raw_exec tasks (cwd under <dir>/alloc, NOMAD_* paths in the
// environment) and by exec tasks, which live in their own mount and PID
// namespaces where no path points back to dir, but in a cgroup named
// <alloc ID>.<task>.
func referencesDir(pid int, dir string, allocIDs map[string]bool) bool {
	base := fmt.Sprintf("/proc/%d/", pid)
	for _, link := range []string{"cwd", "root"} {
		if t, err := os.Readlink(base + link); err == nil && pathWithin(strings.TrimSuffix(t, " (deleted)"), dir) {
			return true
		}
	}
	for _, file := range []string{"cmdline", "environ"} {
		if data, err := os.ReadFile(base + file); err == nil && containsPath(data, dir) {
			return true
		}
	}
	if len(allocIDs) > 0 {
		if data, err := os.ReadFile(base + "cgroup"); err == nil && cgroupHasAlloc(string(data), allocIDs) {
			return true
		}
	}
	return false
}

// cgroupHasAlloc reports whether a /proc/<pid>/cgroup listing places the
// process in a Nomad task cgroup of one of allocIDs: cgroups v1
// ".../nomad/<alloc>.<task>", cgroups v2
// ".../nomad.slice/share.slice/<alloc>.<task>.scope".
func cgroupHasAlloc(cgroup string, allocIDs map[string]bool) bool {
	for _, line := range strings.Split(cgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, elem := range strings.Split(parts[2], "/") {
			if len(elem) < uuidLen {
				continue
			}
			if allocIDs[elem[:uuidLen]] && (len(elem) == uuidLen || elem[uuidLen] == '.') {
				return true
			}
		}
	}
	return false
}

const uuidLen = 36

// allocIDsIn returns the allocation IDs that have a directory under
// <dir>/data/alloc (the layout Start uses) or <dir>/alloc.
func allocIDsIn(dir string) map[string]bool {
	ids := map[string]bool{}
	for _, allocDir := range []string{filepath.Join(dir, nomadDataSubdir, "alloc"), filepath.Join(dir, "alloc")} {
		ents, _ := os.ReadDir(allocDir)
		for _, e := range ents {
			if e.IsDir() && len(e.Name()) == uuidLen {
				ids[e.Name()] = true
			}
		}
	}
	return ids
}

// pathWithin reports whether p is dir or below it.
func pathWithin(p, dir string) bool {
	dir = strings.TrimRight(dir, "/")
	if dir == "" {
		return false
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// containsPath reports whether data mentions dir as a whole path component
// prefix: "/tmp/x" matches "/tmp/x", "/tmp/x/alloc" or "--dir=/tmp/x" but not
// "/tmp/xy".
func containsPath(data []byte, dir string) bool {
	d := []byte(strings.TrimRight(dir, "/"))
	if len(d) == 0 {
		return false
	}
	for off := 0; ; {
		i := bytes.Index(data[off:], d)
		if i < 0 {
			return false
		}
		end := off + i + len(d)
		if end == len(data) || !isPathChar(data[end]) || data[end] == '/' {
			return true
		}
		off += i + 1
	}
}

func isPathChar(c byte) bool {
	return c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == '@' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// processesReferencing returns the PIDs (other than protected ones) that
// belong to the agent owning dir (see referencesDir), considering the
// allocations found under dir plus extraAllocs.
func processesReferencing(dir string, extraAllocs ...string) []int {
	ids := allocIDsIn(dir)
	for _, id := range extraAllocs {
		ids[id] = true
	}
	prot := protectedPIDs()
	pids, _ := listPIDs()
	var out []int
	for _, pid := range pids {
		if prot[pid] {
			continue
		}
		if st, err := readProcStat(pid); err != nil || st.State == 'Z' {
			continue
		}
		if referencesDir(pid, dir, ids) {
			out = append(out, pid)
		}
	}
	return out
}

// killReferencing SIGKILLs, by PID, every process processesReferencing finds
// until none is left or the timeout elapses. It returns the PIDs that
// survived.
func killReferencing(dir string, timeout time.Duration, extraAllocs ...string) []int {
	deadline := time.Now().Add(timeout)
	for {
		pids := processesReferencing(dir, extraAllocs...)
		if len(pids) == 0 {
			return nil
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return pids
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// removeTaskCgroups removes the (by now empty) cgroups Nomad created for
// allocIDs and could not clean up because the agent died first. Best effort:
// rmdir fails harmlessly on cgroups that still have processes.
func removeTaskCgroups(allocIDs map[string]bool) {
	for id := range allocIDs {
		for _, pattern := range []string{
			"/sys/fs/cgroup/*/nomad/" + id + ".*",               // v1 and hybrid
			"/sys/fs/cgroup/nomad/" + id + ".*",                 // v2 without systemd slices
			"/sys/fs/cgroup/nomad.slice/*/" + id + ".*",         // v2
			"/sys/fs/cgroup/unified/nomad.slice/*/" + id + ".*", // hybrid v2 hierarchy
		} {
			matches, _ := filepath.Glob(pattern)
			for _, m := range matches {
				_ = syscall.Rmdir(m)
			}
		}
	}
}

// mountInfo is one line of /proc/<pid>/mountinfo.
type mountInfo struct {
	ID         int
	ParentID   int
	MountPoint string
	FSType     string
	Source     string
}

// parseMountInfo parses the mountinfo format described in proc(5):
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// Paths have space, tab, newline and backslash escaped as \ooo octal.
func parseMountInfo(r io.Reader) ([]mountInfo, error) {
	var out []mountInfo
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 7 {
			return nil, fmt.Errorf("malformed mountinfo line %q", line)
		}
		var m mountInfo
		var err error
		if m.ID, err = strconv.Atoi(f[0]); err != nil {
			return nil, fmt.Errorf("malformed mountinfo line %q", line)
		}
		if m.ParentID, err = strconv.Atoi(f[1]); err != nil {
			return nil, fmt.Errorf("malformed mountinfo line %q", line)
		}
		m.MountPoint = unescapeMountPath(f[4])
		// Optional fields run until a lone "-".
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if sep < 0 {
			return nil, fmt.Errorf("malformed mountinfo line %q: no separator", line)
		}
		if sep+1 < len(f) {
			m.FSType = f[sep+1]
		}
		if sep+2 < len(f) {
			m.Source = unescapeMountPath(f[sep+2])
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// unescapeMountPath decodes the \ooo octal escapes used in mountinfo.
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountsUnder returns the mount points at or below dir, deepest first.
func mountsUnder(mounts []mountInfo, dir string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range mounts {
		if pathWithin(m.MountPoint, dir) && !seen[m.MountPoint] {
			seen[m.MountPoint] = true
			out = append(out, m.MountPoint)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := strings.Count(out[i], "/"), strings.Count(out[j], "/")
		if di != dj {
			return di > dj
		}
		return len(out[i]) > len(out[j])
	})
	return out
}

func readMounts() ([]mountInfo, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseMountInfo(f)
}

// unmountUnder lazily unmounts everything mounted at or below dir, deepest
// first, repeating while stacked mounts keep appearing. It returns an error
// naming the mount points that are still present afterwards.
func unmountUnder(dir string) error {
	dir = canonicalDir(dir)
	for round := 0; round < 8; round++ {
		mounts, err := readMounts()
		if err != nil {
			return fmt.Errorf("read mountinfo: %w", err)
		}
		points := mountsUnder(mounts, dir)
		if len(points) == 0 {
			return nil
		}
		for _, p := range points {
			_ = syscall.Unmount(p, syscall.MNT_DETACH)
		}
	}
	mounts, err := readMounts()
	if err != nil {
		return fmt.Errorf("read mountinfo: %w", err)
	}
	if left := mountsUnder(mounts, dir); len(left) > 0 {
		return fmt.Errorf("still mounted under %s: %s", dir, strings.Join(left, ", "))
	}
	return nil
}

// canonicalDir resolves symlinks (e.g. /tmp -> /private/tmp) so the path
// matches what the kernel reports in /proc; it falls back to a cleaned
// absolute path.
func canonicalDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return filepath.Clean(dir)
}
