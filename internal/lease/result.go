package lease

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// ResultClaims is what the cluster's signature on a lease result says:
// Nomad ran allocation AllocationID of job JobID in Namespace, and its
// timer task asked for the result identity at IssuedAt.
type ResultClaims struct {
	Namespace, JobID, AllocationID, Task string
	IssuedAt                             time.Time
}

type nomadClaims struct {
	Namespace    string `json:"nomad_namespace"`
	JobID        string `json:"nomad_job_id"`
	AllocationID string `json:"nomad_allocation_id"`
	Task         string `json:"nomad_task"`
}

// VerifyResult checks a lease result's signature (the timer's result
// identity, a JWT) against the cluster's JSON Web Key Set (Nomad serves it
// at /.well-known/jwks.json): signed by one of its keys, for
// ResultAudience, naming the lease (namespace and name) and its timer
// task. Anyone with the key set can check it; berth's key plays no part.
func VerifyResult(token string, jwks []byte, namespace, name string) (ResultClaims, error) {
	var keys jose.JSONWebKeySet
	if err := json.Unmarshal(jwks, &keys); err != nil {
		return ResultClaims{}, fmt.Errorf("the cluster's key set is not a JSON Web Key Set: %w", err)
	}
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256, jose.EdDSA})
	if err != nil {
		return ResultClaims{}, fmt.Errorf("the signature is not a signed JWT: %w", err)
	}
	var std jwt.Claims
	var nc nomadClaims
	if err := tok.Claims(keys, &std, &nc); err != nil {
		return ResultClaims{}, fmt.Errorf("no key of the cluster verifies the signature: %w", err)
	}
	if err := std.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{ResultAudience}}, ClockSkewAllowance); err != nil {
		return ResultClaims{}, fmt.Errorf("the signature is not a lease result's: %w", err)
	}
	if namespace == "" {
		namespace = DefaultNamespace
	}
	var errs []error
	if nc.Namespace != namespace || nc.JobID != name {
		errs = append(errs, fmt.Errorf("it names job %q in namespace %q, not lease %q in %q", nc.JobID, nc.Namespace, name, namespace))
	}
	if nc.Task != TimerTask {
		errs = append(errs, fmt.Errorf("it was issued to task %q, not the lease's %q", nc.Task, TimerTask))
	}
	out := ResultClaims{Namespace: nc.Namespace, JobID: nc.JobID, AllocationID: nc.AllocationID, Task: nc.Task}
	if std.IssuedAt != nil {
		out.IssuedAt = std.IssuedAt.Time().UTC()
	}
	return out, errors.Join(errs...)
}

// CheckResultLease decides whether a result issued to an allocation that
// ran the lease ran (rebuilt from the allocation's job, at the version it
// ran) is a result of current, the lease in Nomad now. Both must verify
// against t, and be the same signed version: a result of an earlier lease
// of the same name (every renewal and replacement keeps the name), or of a
// version changed outside berth, is not this lease's. Without a key to
// verify against (t.Key, or t.Signer), no result is.
func CheckResultLease(ran, current Lease, t Trust) error {
	if err := ResultTrusted(t); err != nil {
		return err
	}
	if status, problems := Check(ran, t); status != Verified {
		return fmt.Errorf("it was issued to an allocation of a lease version that does not verify (changed outside berth): %s",
			strings.Join(problems, "; "))
	}
	if status, problems := Check(current, t); status != Verified {
		return fmt.Errorf("lease %q in Nomad does not verify now: %s", current.Name, strings.Join(problems, "; "))
	}
	if ran.Signature != current.Signature {
		which := "another version of the lease"
		switch {
		case ran.CreatedAt.Before(current.CreatedAt):
			which = "an earlier lease of the same name"
		case ran.SignedAt.Before(current.SignedAt):
			which = "an earlier version of this lease (before a change in place)"
		}
		return fmt.Errorf("it was issued to %s (created %s, signed at %s), not to the current one (created %s, signed at %s)",
			which, stamp(ran.CreatedAt), signedWhen(ran.SignedAt), stamp(current.CreatedAt), signedWhen(current.SignedAt))
	}
	return nil
}

// ResultTrusted says why no result can be bound to a lease under t: there
// is no key to verify the lease against (berth's results are only as good
// as the lease signature they are tied to). nil when there is one.
func ResultTrusted(t Trust) error {
	if t.Key == nil && t.Signer == "" {
		return errors.New("the provider has no signing_key, so berth cannot tell the lease it signed from any other job " +
			"of that name; configure the key the lease was signed with")
	}
	return nil
}
