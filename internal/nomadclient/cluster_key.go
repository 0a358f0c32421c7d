package nomadclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// clusterKey names which cluster answers a client's requests: the address
// without credentials (splitCredentials has taken them out), the region
// and the TLS server name (a proxy may route on SNI), and the key IDs of
// the cluster's workload identity keys. Those IDs are the root keys of
// the cluster's keyring, random UUIDs Nomad makes when the cluster is
// created, so a cluster rebuilt at the same address, or another cluster
// behind the same port-forward, has other ones. Hashed, so private state
// that records it shows no address; no credential, token or header value
// goes into it, so neither a leak nor a rotated secret can move it.
func clusterKey(bareAddress, region, tlsServerName string, keyIDs []string) string {
	ids := append([]string(nil), keyIDs...)
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(strings.Join(append([]string{
		strings.TrimRight(bareAddress, "/"), region, tlsServerName,
	}, ids...), "\x00")))
	return hex.EncodeToString(sum[:])
}

// clusterIdentity is a client's cluster key, read once: the first caller
// reads the cluster's key IDs, later ones wait for that and share it.
type clusterIdentity struct {
	mu   sync.Mutex
	done bool
	key  string
	// selects is what the client's configuration says of the cluster
	// (bare address, region, TLS server name).
	selects [3]string
}

// ClusterKey is a digest of what selects the cluster this client talks to
// and of the identity Nomad gave that cluster (clusterKey): equal keys,
// the same cluster, region and routing. "" when the identity could not be
// read (an unreachable Nomad, a cluster without keys): no key, no
// shortcut. Read once per client (one Terraform command): a key rotation
// during the command changes the key at the next command, whose first
// refresh then reads in full.
func (c *Client) ClusterKey(ctx context.Context) string {
	id := c.identity
	if id == nil {
		return ""
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.done {
		return id.key
	}
	id.done = true
	keys, err := c.WorkloadIdentityKeys(ctx)
	if err != nil || len(keys) == 0 {
		tflog.Debug(ctx, "No cluster identity (workload identity key IDs); refreshes read in full", map[string]any{"error": errText(err)})
		return ""
	}
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		if k.ID != "" {
			ids = append(ids, k.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	id.key = clusterKey(id.selects[0], id.selects[1], id.selects[2], ids)
	return id.key
}

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}
