package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// consumersExist answers the reads that tell whether zeta's consumers of
// chargedLedger (job apps/web, host volume apps/pg) still exist.
func consumersExist(f *fakeNomad, web, pg bool) {
	if web {
		f.handle("GET /v1/job/web", replyJSON(&api.Job{ID: ptr("web"), Namespace: ptr("apps")}))
	} else {
		f.handle("GET /v1/job/web", replyRaw(http.StatusNotFound, "job not found"))
	}
	vols := []*api.HostVolumeStub{}
	if pg {
		vols = append(vols, &api.HostVolumeStub{ID: "5e1c0c8e-0000-4000-8000-000000000001", Name: "pg", Namespace: "apps", NodeID: testNodeID})
	}
	f.handle("GET /v1/volumes", replyJSON(vols))
}

func TestParseConsumer(t *testing.T) {
	tests := []struct {
		key      string
		kind     consumerKind
		ns, name string
		ok       bool
	}{
		{InstanceConsumer("apps", "web"), instanceConsumerKind, "apps", "web", true},
		{LeaseConsumer("default", "train-1"), leaseConsumerKind, "default", "train-1", true},
		{VolumeConsumer("ml", "data.v2"), volumeConsumerKind, "ml", "data.v2", true},
		{"hold:default/x", "", "", "", false},
		{"instance:default", "", "", "", false},
		{"instance:/web", "", "", "", false},
		{"instance:default/", "", "", "", false},
		{"instance:default/a/b", "", "", "", false},
		{"web", "", "", "", false},
		{"", "", "", "", false},
	}
	for _, tt := range tests {
		kind, ns, name, ok := parseConsumer(tt.key)
		if kind != tt.kind || ns != tt.ns || name != tt.name || ok != tt.ok {
			t.Errorf("parseConsumer(%q) = %q, %q, %q, %v; want %q, %q, %q, %v", tt.key, kind, ns, name, ok, tt.kind, tt.ns, tt.name, tt.ok)
		}
	}
}

// TestReleaseDropsVanishedConsumers: a reservation whose consumers were
// all deleted behind Terraform's back is released, in one write.
func TestReleaseDropsVanishedConsumers(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	consumersExist(f, false, false)
	if err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "zeta", time.Time{}); err != nil {
		t.Fatal(err)
	}
	items, _, writes, _ := v.snapshot()
	if len(writes) != 1 || writes[0].CAS != 8 {
		t.Fatalf("writes = %+v, want one cas=8", writes)
	}
	want := chargedLedger()
	delete(want, "zeta")
	if got := decodeItems(t, testNodeID, items).Reservations; !reflect.DeepEqual(got, want) {
		t.Errorf("ledger after release = %+v, want %+v", got, want)
	}
	if q := f.requests("/v1/job/web")[0].Query.Get("namespace"); q != "apps" {
		t.Errorf("job read in namespace %q, want apps", q)
	}
}

// TestReleaseKeepsWhatItCannotRuleOut: a live consumer keeps its charge,
// and so does one whose existence Nomad would not tell; the release is
// refused naming both, and nothing is written.
func TestReleaseKeepsWhatItCannotRuleOut(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	f.handle("GET /v1/job/web", replyJSON(&api.Job{ID: ptr("web"), Namespace: ptr("apps")}))
	f.handle("GET /v1/volumes", replyRaw(http.StatusForbidden, "Permission denied"))
	err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "zeta", time.Time{})
	if err == nil || !strings.Contains(err.Error(), "instance:apps/web, volume:apps/pg") {
		t.Fatalf("err = %v, want a refusal naming both consumers", err)
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
		t.Errorf("writes = %+v, want none", writes)
	}
}

// TestResizeDropsVanishedConsumers: a resize drops the charge of a job
// that is gone (so it may shrink below it) and keeps the live volume's.
func TestResizeDropsVanishedConsumers(t *testing.T) {
	f, v := reserveFixture(t)
	consumersExist(f, false, true)
	req := NodeReservationRequest{Name: "zeta", NodeID: testNodeID, Request: res(100, 100, 500), Annotations: map[string]string{"team": "data"}}
	if err := f.client().ReserveOn(context.Background(), ledgerNS, testNodeID, req); err != nil {
		t.Fatalf("resize below the vanished job's charge: %v", err)
	}
	items, _, writes, _ := v.snapshot()
	if len(writes) != 1 {
		t.Fatalf("writes = %+v, want one", writes)
	}
	got := decodeItems(t, testNodeID, items).Reservations["zeta"]
	want := map[string]capacity.Resources{VolumeConsumer("apps", "pg"): res(0, 0, 500)}
	if got.Request != req.Request || !reflect.DeepEqual(got.Consumers, want) {
		t.Errorf("zeta after the resize = %+v, want request %+v and consumers %+v", got, req.Request, want)
	}
}

// TestCheckNodeReservationDropsVanishedConsumers: the plan-time check
// counts what the apply would: a vanished consumer's charge does not
// block a shrink, a live one does. It never writes.
func TestCheckNodeReservationDropsVanishedConsumers(t *testing.T) {
	f, v := reserveFixture(t)
	consumersExist(f, false, true)
	c := f.client()
	if err := c.CheckNodeReservation(context.Background(), ledgerNS, NodeReservationRequest{Name: "zeta", NodeID: testNodeID, Request: res(0, 0, 500)}); err != nil {
		t.Errorf("shrink to the live volume's charge: %v", err)
	}
	err := c.CheckNodeReservation(context.Background(), ledgerNS, NodeReservationRequest{Name: "zeta", NodeID: testNodeID, Request: res(0, 0, 499)})
	var se *ledger.ShrinkError
	if !errors.As(err, &se) || se.Dimension != capacity.Disk {
		t.Errorf("err = %v, want a disk *ledger.ShrinkError", err)
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
		t.Errorf("writes = %+v, want none from a check", writes)
	}
}

// TestChargeDropsNothing: a consumer's charge never drops others' charges,
// nor even asks whether they exist (one being created has its charge
// written before its job or volume exists).
func TestChargeDropsNothing(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	if err := f.client().Charge(context.Background(), ledgerNS, testNodeID+"/zeta", InstanceConsumer("apps", "api"), res(1, 1, 1)); err != nil {
		t.Fatal(err)
	}
	items, _, _, _ := v.snapshot()
	if got := decodeItems(t, testNodeID, items).Reservations["zeta"].Consumers; len(got) != 3 {
		t.Errorf("consumers after the charge = %+v, want the two before and the new one", got)
	}
	if n := f.count("/v1/job/web") + f.count("/v1/volumes"); n != 0 {
		t.Errorf("%d existence reads, want none", n)
	}
}

func TestCheckCharge(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	c := f.client()
	zeta := testNodeID + "/zeta"
	web := InstanceConsumer("apps", "web")
	grown := res(2000, 1024, 2000)
	// zeta: request 1000/1024/2000; apps/web uses 300/256/0, apps/pg 0/0/500.
	tests := []struct {
		name string
		cc   ChargeCheck
		want error // nil, or the type to expect
	}{
		{"exact fit", ChargeCheck{ReservationID: zeta, Consumer: InstanceConsumer("apps", "api"), Amount: res(700, 768, 1500)}, nil},
		{"one MHz more", ChargeCheck{ReservationID: zeta, Consumer: InstanceConsumer("apps", "api"), Amount: res(701, 0, 0)}, &ledger.BudgetError{}},
		{"own charge is replaced", ChargeCheck{ReservationID: zeta, Consumer: web, Amount: res(1000, 1024, 0)}, nil},
		{"planned growth counts", ChargeCheck{ReservationID: zeta, Consumer: web, Amount: res(2000, 0, 0), PlannedRequest: &grown}, nil},
		{"beyond the planned growth", ChargeCheck{ReservationID: zeta, Consumer: web, Amount: res(2001, 0, 0), PlannedRequest: &grown}, &ledger.BudgetError{}},
		{"missing reservation", ChargeCheck{ReservationID: testNodeID + "/nope", Consumer: web, Amount: res(1, 0, 0)}, &ledger.MissingReservationError{}},
		{"node without a ledger", ChargeCheck{ReservationID: "other/zeta", Consumer: web, Amount: res(1, 0, 0)}, &ledger.MissingReservationError{}},
	}
	newFakeVar(f, ledgerNS, LedgerPath("other"), nil, 0)
	for _, tt := range tests {
		err := c.CheckCharge(context.Background(), ledgerNS, tt.cc)
		switch want := tt.want.(type) {
		case nil:
			if err != nil {
				t.Errorf("%s: %v, want it to fit", tt.name, err)
			}
		case *ledger.BudgetError:
			if !errors.As(err, &want) || !strings.Contains(err.Error(), "budget") {
				t.Errorf("%s: err = %v, want a *ledger.BudgetError", tt.name, err)
			}
		case *ledger.MissingReservationError:
			if !errors.As(err, &want) {
				t.Errorf("%s: err = %v, want a *ledger.MissingReservationError", tt.name, err)
			}
		}
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
		t.Errorf("writes = %+v, want none from a check", writes)
	}
	if err := c.CheckCharge(context.Background(), ledgerNS, ChargeCheck{ReservationID: "no-slash", Consumer: web}); err == nil {
		t.Error("a malformed reservation ID was checked")
	}
}
