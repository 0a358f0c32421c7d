package nomadclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// NodeIntroFeature is what needs Nomad 1.11 for a node introduction token,
// as a refusal names it.
const NodeIntroFeature = "berth_node_intro_token"

// NodeIntroNomad is the first Nomad release with client introduction
// tokens.
const NodeIntroNomad = "1.11.0"

// NodeIntroSpec is what a client introduction token is asked for. Empty
// fields are Nomad's defaults: no node name, the pool "default", the
// servers' client_introduction.default_identity_ttl (5m unless set).
type NodeIntroSpec struct {
	NodeName string
	NodePool string
	TTL      time.Duration
}

// NodeIntroToken is a client introduction token: a JWT the cluster signed,
// which a new Nomad client presents when it registers. Its JWT is a
// secret, unexported like an ACL token's: only JWT() reads it, for the
// ephemeral resource that hands it to Terraform. The other fields are the
// token's claims, read from its payload without verifying it (berth just
// received it from the cluster).
type NodeIntroToken struct {
	NodeName  string    // nomad_node_name; "" when none was asked for
	NodePool  string    // nomad_node_pool
	IssuedAt  time.Time // iat; zero when the token does not say
	ExpiresAt time.Time // exp; zero when the token does not say
	jwt       string
}

// JWT is the signed token.
func (t *NodeIntroToken) JWT() string { return t.jwt }

// CreateNodeIntroToken asks the cluster to sign a client introduction
// token (PUT /v1/acl/identity/client-introduction-token; ACL: node write).
// A cluster older than Nomad 1.11 is refused before the request with a
// *NomadVersionError naming berth_node_intro_token and both versions. The
// request is retried like a read: Nomad signs claims and stores nothing,
// so a retry after a lost answer makes no second object, only a second
// token (the lost one was never received).
func (c *Client) CreateNodeIntroToken(ctx context.Context, s NodeIntroSpec) (*NodeIntroToken, error) {
	if err := c.RequireNomad(ctx, NodeIntroNomad, NodeIntroFeature); err != nil {
		return nil, err
	}
	req := &api.ACLIdentityClientIntroductionTokenRequest{NodeName: s.NodeName, NodePool: s.NodePool, TTL: s.TTL}
	out, err := readRetry(ctx, c, "create client introduction token", func(ctx context.Context) (*api.ACLIdentityClientIntroductionTokenResponse, error) {
		out, _, err := c.api.ACLIdentity().CreateClientIntroductionToken(req, c.write(ctx, ""))
		return out, err
	})
	if IsNotFound(err) && c.ClusterVersion(ctx) == "" {
		// The version could not be read (a token without agent:read): a
		// 404 is most likely a cluster that predates the endpoint.
		return nil, fmt.Errorf("%w (Nomad %s added client introduction tokens; berth could not read the cluster's "+
			"version to tell whether it is older)", err, NodeIntroNomad)
	}
	if err != nil {
		return nil, err
	}
	if out == nil || out.JWT == "" {
		return nil, errors.New("the answer to the client introduction token request holds no token")
	}
	tok := &NodeIntroToken{jwt: out.JWT}
	if err := tok.readClaims(); err != nil {
		return nil, fmt.Errorf("the client introduction token Nomad returned is not a JWT berth can read: %w", err)
	}
	return tok, nil
}

// introClaims are the claims berth reads of a client introduction token.
type introClaims struct {
	NodeName string   `json:"nomad_node_name"`
	NodePool string   `json:"nomad_node_pool"`
	IssuedAt *float64 `json:"iat"` // NumericDate: seconds since the epoch
	Expiry   *float64 `json:"exp"`
}

// readClaims fills t's claims from its JWT's payload. Errors never
// repeat the token or a part of it.
func (t *NodeIntroToken) readClaims() error {
	parts := strings.Split(t.jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("it has %d parts, not 3", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return errors.New("its payload is not base64url")
	}
	var cl introClaims
	if err := json.Unmarshal(raw, &cl); err != nil {
		return errors.New("its payload is not a JSON object")
	}
	t.NodeName, t.NodePool = cl.NodeName, cl.NodePool
	if cl.IssuedAt != nil {
		t.IssuedAt = time.Unix(int64(*cl.IssuedAt), 0).UTC()
	}
	if cl.Expiry != nil {
		t.ExpiresAt = time.Unix(int64(*cl.Expiry), 0).UTC()
	}
	return nil
}
