package server

import (
	"context"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// shortcutsEnv turns the server wrapper's shortcuts off: with "off", every
// plan and refresh of berth_instance, and every state upgrade, goes
// through the framework (the unchanged-plan, create-plan, unchanged-read
// and upgrade-state shortcuts all step aside). For when something looks wrong, and to tell whether a shortcut
// is the cause.
const shortcutsEnv = "BERTH_SHORTCUTS"

// shortcutSwitch is shortcutsEnv as read when the server was built. A nil
// switch is on.
type shortcutSwitch struct {
	off    bool
	value  string
	logged sync.Once
}

// shortcutSwitchFrom reads shortcutsEnv through lookup. It accepts "on"
// (or unset) and "off"; any other value turns the shortcuts off too, the
// side that is only slower, and the first request logs a warning naming
// the values it accepts.
func shortcutSwitchFrom(lookup func(string) (string, bool)) *shortcutSwitch {
	v, _ := lookup(shortcutsEnv)
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "on":
		return &shortcutSwitch{}
	default:
		return &shortcutSwitch{off: true, value: v}
	}
}

// stepsAside reports whether the shortcuts are off, and logs that once per
// plugin process (the server is built before any request carries a
// logger, so the first request logs it).
func (s *shortcutSwitch) stepsAside(ctx context.Context) bool {
	if s == nil || !s.off {
		return false
	}
	s.logged.Do(func() {
		if strings.EqualFold(strings.TrimSpace(s.value), "off") {
			tflog.Info(ctx, shortcutsEnv+"=off: every plan and refresh of berth_instance, and every state upgrade, goes through the framework")
			return
		}
		tflog.Warn(ctx, shortcutsEnv+" has a value berth does not know, so the shortcuts are off; set on or off",
			map[string]any{"value": s.value})
	})
	return true
}
