// Package allocstatus holds berth's one rule for whether a Nomad
// allocation may still be running, so every caller (deletes, waits,
// node accounting, listings) agrees.
package allocstatus

import (
	"fmt"
	"strings"
)

// Client statuses as Nomad reports them (nomad/structs AllocClientStatus*).
const (
	Pending  = "pending"
	Running  = "running"
	Unknown  = "unknown"
	Complete = "complete"
	Failed   = "failed"
	Lost     = "lost"
)

// Terminal lists the client statuses of allocations that no longer run.
// Anything else is live.
func Terminal() []string { return []string{Complete, Failed, Lost} }

// Live reports whether an allocation with this client status may still be
// running and holding its node's resources and volumes:
//
//   - pending, running: live;
//   - unknown: live. Nomad reports it for an allocation on a client that
//     lost contact (max_client_disconnect); the tasks may well still run
//     there and come back when the client reconnects;
//   - complete, failed, lost: not live (lost means Nomad gave up on the
//     client and replaced the allocation);
//   - anything else (a status a newer Nomad adds): live, the safe side for
//     deletes and capacity accounting.
func Live(clientStatus string) bool {
	for _, s := range Terminal() {
		if clientStatus == s {
			return false
		}
	}
	return true
}

// LiveFilter is Live as a Nomad list filter expression (for ?filter=), so
// server-side filtering applies the same rule.
func LiveFilter() string {
	parts := make([]string, 0, len(Terminal()))
	for _, s := range Terminal() {
		parts = append(parts, fmt.Sprintf("ClientStatus != %q", s))
	}
	return strings.Join(parts, " and ")
}
