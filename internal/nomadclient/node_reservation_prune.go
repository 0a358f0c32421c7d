package nomadclient

import (
	"context"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// A consumer whose job or host volume was deleted behind Terraform's back
// keeps its charge in the ledger: its refresh only reads, so a plan never
// writes the shared ledger. The charge is dropped by the reservation's own
// apply instead (a resize or a release, and the plan-time check of one, so
// that plan and apply agree), never by a consumer's charge: a consumer
// being created has its charge written before its job or volume exists,
// and must not lose it to a concurrent apply.

// consumerKind is the part of a consumer key before the colon.
type consumerKind string

const (
	instanceConsumerKind consumerKind = "instance"
	leaseConsumerKind    consumerKind = "lease"
	volumeConsumerKind   consumerKind = "volume"
	jobConsumerKind      consumerKind = "job"
)

// parseConsumer splits a consumer key ("instance:<ns>/<job>",
// "lease:<ns>/<job>", "job:<ns>/<job>", "volume:<ns>/<name>"); ok is false for any other
// shape, whose charge berth then never drops.
func parseConsumer(key string) (kind consumerKind, namespace, name string, ok bool) {
	k, rest, found := strings.Cut(key, ":")
	if !found {
		return "", "", "", false
	}
	namespace, name, found = strings.Cut(rest, "/")
	if !found || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", "", false
	}
	switch kind = consumerKind(k); kind {
	case instanceConsumerKind, leaseConsumerKind, volumeConsumerKind, jobConsumerKind:
		return kind, namespace, name, true
	}
	return "", "", "", false
}

// consumerGone reports whether the Nomad object behind a consumer key is
// certainly gone: no job (instances, leases) or no host volume of that name
// (volumes) in its namespace. A key it cannot parse is never gone.
func (c *Client) consumerGone(ctx context.Context, key string) (bool, error) {
	kind, ns, name, ok := parseConsumer(key)
	if !ok {
		return false, nil
	}
	if kind == volumeConsumerKind {
		vols, err := c.VolumesNamed(ctx, ns, name)
		return err == nil && len(vols) == 0, err
	}
	job, err := c.getJob(ctx, ns, name)
	return err == nil && job == nil, err
}

// pruneVanishedConsumers drops from reservation name in l the charges of
// consumers that no longer exist in Nomad, and returns their keys, sorted.
// It only reads Nomad; writing l is the caller's. A consumer it cannot
// check (Nomad did not answer, no permission) keeps its charge: a charge is
// only dropped when its object is certainly gone.
func (c *Client) pruneVanishedConsumers(ctx context.Context, l *ledger.Ledger, name string) []string {
	r, ok := l.Reservations[name]
	if !ok || len(r.Consumers) == 0 {
		return nil
	}
	keys := make([]string, 0, len(r.Consumers))
	for k := range r.Consumers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var dropped []string
	for _, k := range keys {
		gone, err := c.consumerGone(ctx, k)
		if err != nil {
			tflog.Warn(ctx, "Could not tell whether a node reservation's consumer still exists; its charge is kept",
				map[string]any{"node": l.NodeID, "reservation": name, "consumer": k, "error": err.Error()})
			continue
		}
		if gone && l.Uncharge(name, k) {
			dropped = append(dropped, k)
		}
	}
	if len(dropped) > 0 {
		tflog.Info(ctx, "Dropping the charges of consumers that no longer exist in Nomad",
			map[string]any{"node": l.NodeID, "reservation": name, "consumers": dropped})
	}
	return dropped
}
