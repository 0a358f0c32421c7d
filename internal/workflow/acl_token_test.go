package workflow

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// fakeACLNomad records the calls of berth_acl_token's workflow and fails
// the ones named in fail.
type fakeACLNomad struct {
	steps []string
	fail  map[string]bool
}

func (f *fakeACLNomad) step(name string) error {
	f.steps = append(f.steps, name)
	if f.fail[name] {
		return errors.New(name + " refused")
	}
	return nil
}

func (f *fakeACLNomad) CreateACLToken(context.Context, nomadclient.ACLTokenSpec) (*nomadclient.ACLToken, error) {
	if err := f.step("create token"); err != nil {
		return nil, err
	}
	return &nomadclient.ACLToken{AccessorID: "acc"}, nil
}

func (f *fakeACLNomad) UpdateACLToken(_ context.Context, id string, _ nomadclient.ACLTokenSpec) (*nomadclient.ACLToken, error) {
	if err := f.step("update token"); err != nil {
		return nil, err
	}
	return &nomadclient.ACLToken{AccessorID: id}, nil
}

func (f *fakeACLNomad) DeleteACLToken(context.Context, string) error { return f.step("delete token") }

func (f *fakeACLNomad) WriteTokenSecretVariable(_ context.Context, _ *nomadclient.ACLToken, _, path string) error {
	return f.step("write " + path)
}

func (f *fakeACLNomad) DeleteTokenSecretVariable(_ context.Context, _, _, path string) error {
	return f.step("delete " + path)
}

func TestACLTokens(t *testing.T) {
	a, b := SecretVariable{Namespace: "default", Path: "a"}, SecretVariable{Namespace: "default", Path: "b"}
	cases := []struct {
		name  string
		fail  []string
		run   func(ACLTokens) error
		steps string
		err   string
	}{
		{name: "create with a Variable", run: func(w ACLTokens) error {
			_, err := w.Create(context.Background(), nomadclient.ACLTokenSpec{}, a)
			return err
		}, steps: "create token, write a"},
		{name: "create without a Variable", run: func(w ACLTokens) error {
			_, err := w.Create(context.Background(), nomadclient.ACLTokenSpec{}, SecretVariable{})
			return err
		}, steps: "create token"},
		{name: "a refused Variable deletes the token", fail: []string{"write a"}, run: func(w ACLTokens) error {
			_, err := w.Create(context.Background(), nomadclient.ACLTokenSpec{}, a)
			return err
		}, steps: "create token, write a, delete token", err: "*workflow.SecretVariableError"},
		{name: "a failed undo is in the error", fail: []string{"write a", "delete token"}, run: func(w ACLTokens) error {
			_, err := w.Create(context.Background(), nomadclient.ACLTokenSpec{}, a)
			if err != nil && !strings.Contains(err.Error(), "nomad acl token delete acc") {
				t.Errorf("the error does not say how to delete the token: %v", err)
			}
			return err
		}, steps: "create token, write a, delete token", err: "*workflow.SecretVariableError"},
		{name: "a refused token writes nothing", fail: []string{"create token"}, run: func(w ACLTokens) error {
			_, err := w.Create(context.Background(), nomadclient.ACLTokenSpec{}, a)
			return err
		}, steps: "create token", err: "*workflow.WriteError"},
		{name: "update to a new Variable writes it before deleting the old", run: func(w ACLTokens) error {
			_, err := w.Update(context.Background(), "acc", nomadclient.ACLTokenSpec{}, a, b)
			return err
		}, steps: "update token, write b, delete a"},
		{name: "update putting back a Variable", run: func(w ACLTokens) error {
			_, err := w.Update(context.Background(), "acc", nomadclient.ACLTokenSpec{}, SecretVariable{}, a)
			return err
		}, steps: "update token, write a"},
		{name: "update with the same Variable leaves it", run: func(w ACLTokens) error {
			_, err := w.Update(context.Background(), "acc", nomadclient.ACLTokenSpec{}, a, a)
			return err
		}, steps: "update token"},
		{name: "delete removes the Variable first", run: func(w ACLTokens) error {
			return w.Delete(context.Background(), "acc", a)
		}, steps: "delete a, delete token"},
		{name: "a Variable that cannot be deleted keeps the token", fail: []string{"delete a"}, run: func(w ACLTokens) error {
			return w.Delete(context.Background(), "acc", a)
		}, steps: "delete a", err: "*workflow.SecretVariableError"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeACLNomad{fail: map[string]bool{}}
			for _, n := range c.fail {
				f.fail[n] = true
			}
			err := c.run(ACLTokens{Nomad: f})
			wantRun{steps: strings.Split(c.steps, ", "), err: c.err}.check(t, f.steps, err, nil)
		})
	}
}
