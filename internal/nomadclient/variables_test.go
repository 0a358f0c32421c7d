package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// A refused check-and-set update becomes a *VariableConflictError with
// Nomad's index, sent with berth's index as cas, and no item of the
// conflicting Variable (Nomad's 409 body carries them) in its message.
func TestUpdateVariable_conflict(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("PUT /v1/var/app/db", replyRaw(http.StatusConflict,
		`{"Namespace":"default","Path":"app/db","ModifyIndex":12,"ModifyTime":1700000000000000000,"Items":{"pw":"leaked-value"}}`))
	ref := variable.Ref{Namespace: "default", Path: "app/db"}
	_, err := f.client().UpdateVariable(context.Background(), ref, map[string]string{"pw": "mine"}, 9)
	var conflict *VariableConflictError
	if !errors.As(err, &conflict) || conflict.Expected != 9 || conflict.Found.ModifyIndex != 12 {
		t.Fatalf("err = %v, want a conflict expecting 9 and finding 12", err)
	}
	if strings.Contains(err.Error(), "leaked-value") || strings.Contains(err.Error(), "mine") {
		t.Errorf("the error carries an item value: %v", err)
	}
	if reqs := f.requests("/v1/var/app/db"); len(reqs) != 1 || reqs[0].Query.Get("cas") != "9" {
		t.Errorf("requests %+v, want one PUT with cas=9", reqs)
	}
}

// A delete that finds nothing (Nomad answers a conflict with an empty
// Variable) is done; a 403 on read is an error, not "gone".
func TestDeleteVariable_goneAndForbiddenRead(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/var/app/db", replyRaw(http.StatusConflict, `{"ModifyIndex":0}`))
	f.handle("GET /v1/var/app/db", replyRaw(http.StatusForbidden, `Permission denied`))
	c := f.client()
	if err := c.DeleteVariable(context.Background(), variable.Ref{Namespace: "default", Path: "app/db"}, 4); err != nil {
		t.Errorf("delete of a Variable already gone: %v", err)
	}
	if v, err := c.GetVariable(context.Background(), "default", "app/db"); err == nil || !IsForbidden(err) {
		t.Errorf("read refused with 403 = (%v, %v), want a 403 error", v, err)
	}
}

// A create whose answer is lost counts as applied only when the Variable
// read back holds exactly berth's items.
func TestCreateVariable_lostAnswer(t *testing.T) {
	for name, tc := range map[string]struct {
		body      string
		wantIndex uint64
		uncertain bool
	}{
		"ours":     {`{"Namespace":"default","Path":"app/db","ModifyIndex":5,"Items":{"a":"1"}}`, 5, false},
		"not ours": {`{"Namespace":"default","Path":"app/db","ModifyIndex":5,"Items":{"a":"2"}}`, 0, true},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeNomad(t)
			f.handle("PUT /v1/var/app/db", replyRaw(http.StatusInternalServerError, `rpc error`))
			f.handle("GET /v1/var/app/db", replyRaw(http.StatusOK, tc.body))
			meta, err := f.client().CreateVariable(context.Background(), variable.Ref{Namespace: "default", Path: "app/db"}, map[string]string{"a": "1"})
			var uncertain *UncertainWriteError
			if errors.As(err, &uncertain) != tc.uncertain || meta.ModifyIndex != tc.wantIndex {
				t.Errorf("CreateVariable = (%d, %v), want index %d, uncertain %v", meta.ModifyIndex, err, tc.wantIndex, tc.uncertain)
			}
		})
	}
}

// An update or delete whose answer is lost is settled by reading back:
// berth's items at a newer index are applied, the Variable still at the
// index sent is not applied, anything else is uncertain.
func TestUpdateDeleteVariable_lostAnswer(t *testing.T) {
	ref := variable.Ref{Namespace: "default", Path: "app/db"}
	for name, tc := range map[string]struct {
		body              string
		delete            bool
		applied, notTaken bool
	}{
		"update ours":      {`{"Namespace":"default","Path":"app/db","ModifyIndex":8,"Items":{"a":"1"}}`, false, true, false},
		"update untouched": {`{"Namespace":"default","Path":"app/db","ModifyIndex":4,"Items":{"a":"0"}}`, false, false, true},
		"update other":     {`{"Namespace":"default","Path":"app/db","ModifyIndex":8,"Items":{"a":"2"}}`, false, false, false},
		"delete untouched": {`{"Namespace":"default","Path":"app/db","ModifyIndex":4,"Items":{"a":"0"}}`, true, false, true},
		"delete other":     {`{"Namespace":"default","Path":"app/db","ModifyIndex":8,"Items":{"a":"2"}}`, true, false, false},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeNomad(t)
			f.handle("PUT /v1/var/app/db", replyRaw(http.StatusInternalServerError, `rpc error`))
			f.handle("DELETE /v1/var/app/db", replyRaw(http.StatusInternalServerError, `rpc error`))
			f.handle("GET /v1/var/app/db", replyRaw(http.StatusOK, tc.body))
			var err error
			if tc.delete {
				err = f.client().DeleteVariable(context.Background(), ref, 4)
			} else {
				_, err = f.client().UpdateVariable(context.Background(), ref, map[string]string{"a": "1"}, 4)
			}
			var notApplied *WriteNotAppliedError
			var uncertain *UncertainWriteError
			switch {
			case tc.applied && err != nil:
				t.Errorf("err = %v, want applied", err)
			case tc.notTaken && !errors.As(err, &notApplied):
				t.Errorf("err = %v, want not applied", err)
			case !tc.applied && !tc.notTaken && !errors.As(err, &uncertain):
				t.Errorf("err = %v, want uncertain", err)
			}
		})
	}
}
