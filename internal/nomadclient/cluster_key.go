package nomadclient

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// clusterKey names which cluster answers a client's requests: the address
// without credentials (splitCredentials has taken them out), the region
// and the TLS server name (a proxy may route on SNI). Hashed, so private
// state that records it shows no address; no credential, token or header
// value goes into it, so neither a leak nor a rotated secret can move it.
func clusterKey(bareAddress, region, tlsServerName string) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{
		strings.TrimRight(bareAddress, "/"), region, tlsServerName,
	}, "\x00")))
	return hex.EncodeToString(sum[:])
}

// ClusterKey is a digest of what selects the cluster this client talks to
// (clusterKey): equal keys, the same cluster, region and routing.
func (c *Client) ClusterKey() string { return c.cluster }
