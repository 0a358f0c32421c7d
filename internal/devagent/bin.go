package devagent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// NomadVersion is the Nomad release the harness is pinned to.
const NomadVersion = "1.10.5"

// CachePath is where scripts/nomad-bin.sh builds the pinned Nomad binary:
// ${XDG_CACHE_HOME:-$HOME/.cache}/berth/nomad-<version>/nomad.
func CachePath() string {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "berth", "nomad-"+NomadVersion, "nomad")
}

// FindBinary resolves the nomad binary: explicit if non-empty, else
// $NOMAD_BIN, else nomad on PATH, else CachePath. The result is absolute.
func FindBinary(explicit string) (string, error) {
	if explicit != "" {
		return checkExecutable(explicit, "Bin")
	}
	if env := os.Getenv("NOMAD_BIN"); env != "" {
		return checkExecutable(env, "NOMAD_BIN")
	}
	if p, err := exec.LookPath("nomad"); err == nil {
		return filepath.Abs(p)
	}
	if c := CachePath(); c != "" {
		if _, err := checkExecutable(c, "cache"); err == nil {
			return c, nil
		}
	}
	return "", errors.New("devagent: no nomad binary found (checked NOMAD_BIN, PATH and " +
		CachePath() + "); run scripts/nomad-bin.sh or make nomad")
}

func checkExecutable(p, what string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("devagent: nomad binary from %s: %w", what, err)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("devagent: nomad binary from %s (%s) is not an executable file", what, abs)
	}
	return abs, nil
}
