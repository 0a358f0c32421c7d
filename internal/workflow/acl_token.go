package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// ACLTokenNomad is what berth_acl_token's writes need of Nomad;
// *nomadclient.Client has it.
type ACLTokenNomad interface {
	CreateACLToken(ctx context.Context, s nomadclient.ACLTokenSpec) (*nomadclient.ACLToken, error)
	UpdateACLToken(ctx context.Context, accessorID string, s nomadclient.ACLTokenSpec) (*nomadclient.ACLToken, error)
	DeleteACLToken(ctx context.Context, accessorID string) error
	WriteTokenSecretVariable(ctx context.Context, t *nomadclient.ACLToken, namespace, path string) error
	DeleteTokenSecretVariable(ctx context.Context, accessorID, namespace, path string) error
}

// SecretVariable is where berth hands a token's secret to its user: a
// Nomad Variable. The zero value means nowhere.
type SecretVariable struct{ Namespace, Path string }

// Set reports whether v names a Variable.
func (v SecretVariable) Set() bool { return v.Path != "" }

// ACLTokens runs berth_acl_token's writes: the token, then the Variable
// its secret goes to. Nomad generates the secret (it refuses one from the
// caller), so the Variable is how the user receives it.
type ACLTokens struct{ Nomad ACLTokenNomad }

// Create creates the token and writes its secret to dest. A Variable that
// cannot be written deletes the token again, so nothing is half-created;
// an undo that fails is in the error, with the accessor to delete by hand.
func (w ACLTokens) Create(ctx context.Context, spec nomadclient.ACLTokenSpec, dest SecretVariable) (*nomadclient.ACLToken, error) {
	tok, err := w.Nomad.CreateACLToken(ctx, spec)
	if err != nil {
		return nil, &WriteError{Summary: "Could not create the ACL token", Err: err, Uncertain: nomadclient.OutcomeUnknown(err)}
	}
	if !dest.Set() {
		return tok, nil
	}
	if err := w.Nomad.WriteTokenSecretVariable(ctx, tok, dest.Namespace, dest.Path); err != nil {
		if uerr := w.Nomad.DeleteACLToken(ctx, tok.AccessorID); uerr != nil {
			err = errors.Join(err, fmt.Errorf("and deleting the token again failed (delete it by hand: nomad acl token delete %s): %w",
				tok.AccessorID, uerr))
		}
		return nil, &SecretVariableError{Variable: dest, Err: err}
	}
	return tok, nil
}

// Update rewrites the token's settings and, when the Variable changed (or
// no longer holds the secret: had is the zero value then), writes the new
// one before deleting the old.
func (w ACLTokens) Update(ctx context.Context, accessorID string, spec nomadclient.ACLTokenSpec, had, want SecretVariable) (*nomadclient.ACLToken, error) {
	tok, err := w.Nomad.UpdateACLToken(ctx, accessorID, spec)
	if err != nil {
		return nil, &WriteError{Summary: "Could not update the ACL token", Err: err}
	}
	if had == want {
		return tok, nil
	}
	if want.Set() {
		// Nomad answers an update with the whole token, secret included.
		err := w.Nomad.WriteTokenSecretVariable(ctx, tok, want.Namespace, want.Path)
		if err != nil {
			return nil, &SecretVariableError{Variable: want, Err: err}
		}
	}
	if had.Set() {
		if err := w.Nomad.DeleteTokenSecretVariable(ctx, accessorID, had.Namespace, had.Path); err != nil {
			return tok, &SecretVariableError{Variable: had, Err: err, Old: true}
		}
	}
	return tok, nil
}

// Delete deletes the Variable (if it still names the token), then the
// token.
func (w ACLTokens) Delete(ctx context.Context, accessorID string, had SecretVariable) error {
	if had.Set() {
		if err := w.Nomad.DeleteTokenSecretVariable(ctx, accessorID, had.Namespace, had.Path); err != nil {
			return &SecretVariableError{Variable: had, Err: err, Old: true}
		}
	}
	if err := w.Nomad.DeleteACLToken(ctx, accessorID); err != nil {
		return &WriteError{Summary: "Could not delete the ACL token", Err: err}
	}
	return nil
}

// SecretVariableError is a token's secret Variable that could not be
// written (Old false: a create made no token then) or deleted (Old true).
type SecretVariableError struct {
	Variable SecretVariable
	Err      error
	Old      bool
}

func (e *SecretVariableError) Error() string { return e.Err.Error() }
func (e *SecretVariableError) Unwrap() error { return e.Err }
