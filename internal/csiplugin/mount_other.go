//go:build !linux

package csiplugin

import "errors"

// The plugin bind-mounts with Linux mount(2); elsewhere it can create and
// delete volumes but not publish them.
var errNotLinux = errors.New("csiplugin: mounting volumes needs Linux")

func bindMount(string, string, bool) error { return errNotLinux }
func unmount(string) error                 { return errNotLinux }
