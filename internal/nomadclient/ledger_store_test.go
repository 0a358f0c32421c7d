package nomadclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

var t0 = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// ledgerItems encodes reservations the way the ledger package stores them.
func ledgerItems(t *testing.T, nodeID string, rs map[string]ledger.Reservation) map[string]string {
	t.Helper()
	items, err := ledger.Ledger{NodeID: nodeID, Reservations: rs}.Encode()
	if err != nil {
		t.Fatalf("encoding a canned ledger: %v", err)
	}
	return items
}

// decodeItems decodes ledger items a test captured from a write.
func decodeItems(t *testing.T, nodeID string, items map[string]string) ledger.Ledger {
	t.Helper()
	l, err := ledger.Decode(nodeID, items)
	if err != nil {
		t.Fatalf("decoding written ledger items: %v", err)
	}
	return l
}

// varWrite is one check-and-set write the fake variable saw.
type varWrite struct {
	Method string // PUT or DELETE
	CAS    uint64
	Items  map[string]string // PUT body items
	Status int               // what the fake answered
}

// fakeVar is one Nomad Variable served with Nomad's check-and-set rules:
// GET answers 404 when absent; PUT ?cas=N and DELETE ?cas=N succeed only
// when N is the current modify index (0 = absent) and answer 409 with the
// current variable otherwise.
type fakeVar struct {
	t         *testing.T
	namespace string
	path      string

	mu     sync.Mutex
	items  map[string]string // nil = absent
	index  uint64
	next   uint64 // the next modify index to hand out
	writes []varWrite
	reads  int
	// interfere, while it returns true, is "another writer" changing the
	// variable between this client's read and its write; it may mutate
	// items. The write then conflicts.
	interfere func(v *fakeVar) bool
	// failWrite, when non-zero, answers every write with this status.
	failWrite int
}

// newFakeVar registers the GET, PUT and DELETE routes of a variable on f.
// items nil means the variable does not exist yet.
func newFakeVar(f *fakeNomad, namespace, path string, items map[string]string, index uint64) *fakeVar {
	// Other writers' indexes start at 100, so tests can tell them apart.
	v := &fakeVar{t: f.t, namespace: namespace, path: path, items: items, index: index, next: max(100, index+1)}
	if items == nil {
		v.index = 0
	}
	route := "/v1/var/" + path
	f.handle("GET "+route, v.read)
	f.handle("PUT "+route, v.write)
	f.handle("DELETE "+route, v.write)
	return v
}

func (v *fakeVar) current() *api.Variable {
	return &api.Variable{Namespace: v.namespace, Path: v.path, Items: v.items, CreateIndex: 1, ModifyIndex: v.index}
}

func (v *fakeVar) checkNamespace(r *http.Request) {
	if got := r.URL.Query().Get("namespace"); got != v.namespace {
		v.t.Errorf("%s %s in namespace %q, want %q", r.Method, r.URL.Path, got, v.namespace)
	}
}

func (v *fakeVar) read(w http.ResponseWriter, r *http.Request) {
	v.checkNamespace(r)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.reads++
	if v.items == nil {
		replyRaw(http.StatusNotFound, "variable not found")(w, r)
		return
	}
	replyJSON(v.current())(w, r)
}

func (v *fakeVar) write(w http.ResponseWriter, r *http.Request) {
	v.checkNamespace(r)
	v.mu.Lock()
	defer v.mu.Unlock()
	rec := varWrite{Method: r.Method}
	cas, err := strconv.ParseUint(r.URL.Query().Get("cas"), 10, 64)
	if err != nil {
		v.t.Errorf("%s %s without a valid cas parameter: %q", r.Method, r.URL.Path, r.URL.Query().Get("cas"))
	}
	rec.CAS = cas
	if r.Method == http.MethodPut {
		var body api.Variable
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			v.t.Errorf("decoding the PUT body: %v", err)
		}
		if body.Path != v.path || body.Namespace != v.namespace {
			v.t.Errorf("PUT body names %s in %q, want %s in %q", body.Path, body.Namespace, v.path, v.namespace)
		}
		rec.Items = body.Items
	}
	answer := func(status int, h http.HandlerFunc) {
		rec.Status = status
		v.writes = append(v.writes, rec)
		h(w, r)
	}
	if v.failWrite != 0 {
		answer(v.failWrite, replyRaw(v.failWrite, "write failed"))
		return
	}
	if v.interfere != nil && v.interfere(v) {
		v.index = v.next
		v.next++
	}
	if cas != v.index {
		answer(http.StatusConflict, replyRawJSON(http.StatusConflict, v.current()))
		return
	}
	if r.Method == http.MethodDelete {
		v.items, v.index = nil, 0
		answer(http.StatusNoContent, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
		return
	}
	v.items, v.index = rec.Items, v.next
	v.next++
	answer(http.StatusOK, replyJSON(v.current()))
}

func replyRawJSON(status int, v any) http.HandlerFunc {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return replyRaw(status, string(b))
}

func (v *fakeVar) snapshot() (items map[string]string, index uint64, writes []varWrite, reads int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.items, v.index, append([]varWrite(nil), v.writes...), v.reads
}

// inProcessTransport hands requests straight to the fake's handler: no
// sockets, so a synctest bubble's fake clock can run the client's backoff.
type inProcessTransport struct{ f *fakeNomad }

func (t inProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = r.URL.RequestURI()
	rec := httptest.NewRecorder()
	t.f.serve(rec, r)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// inProcessClient builds a Client whose requests reach f's routes without
// going through the network.
func (f *fakeNomad) inProcessClient(t *testing.T) *Client {
	t.Helper()
	a, err := api.NewClient(&api.Config{
		Address:    "http://nomad.invalid:4646",
		HttpClient: &http.Client{Transport: inProcessTransport{f: f}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Client{api: a, address: "http://nomad.invalid:4646", namespace: "default", retry: fastRetry}
}

const ledgerNS = "berth"

func TestReadLedger(t *testing.T) {
	f := newFakeNomad(t)
	items := ledgerItems(t, testNodeID, map[string]ledger.Reservation{"db": {Request: capacity.Resources{CPU: 1}, CreatedAt: t0}})
	newFakeVar(f, ledgerNS, LedgerPath(testNodeID), items, 41)
	newFakeVar(f, ledgerNS, LedgerPath("absent"), nil, 0)
	c := f.client()

	got, err := c.ReadLedger(context.Background(), ledgerNS, testNodeID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ModifyIndex != 41 || !reflect.DeepEqual(got.Items, items) {
		t.Errorf("ReadLedger = %+v, want index 41 and the stored items", got)
	}
	got, err = c.ReadLedger(context.Background(), ledgerNS, "absent")
	if err != nil {
		t.Fatalf("absent ledger: %v", err)
	}
	if got.ModifyIndex != 0 || got.Items == nil || len(got.Items) != 0 {
		t.Errorf("absent ledger = %#v, want index 0 and an empty non-nil map", got)
	}
}

func TestReadLedgerErrors(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/var/"+LedgerPath("n500"), replyRaw(500, "internal error"))
	f.handle("GET /v1/var/"+LedgerPath("nbad"), replyRaw(200, "<html>"))
	c := f.client()

	_, err := c.ReadLedger(context.Background(), ledgerNS, "n500")
	if statusCode(err) != 500 || !strings.Contains(err.Error(), `variable berth/nodes/n500 in namespace "berth"`) {
		t.Errorf("err = %v, want a 500 naming the variable and namespace", err)
	}
	if n := f.count("/v1/var/" + LedgerPath("n500")); n != fastRetry.Attempts {
		t.Errorf("%d reads, want %d (reads are retried)", n, fastRetry.Attempts)
	}
	if _, err := c.ReadLedger(context.Background(), ledgerNS, "nbad"); err == nil {
		t.Error("a malformed answer read as an empty ledger")
	}
}

// An ACL token that may not read the ledger must not be told the ledger
// is empty: Reserve, Release and ReadNodeReservation would act on that.
func TestReadLedgerForbiddenIsAnError(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/var/"+LedgerPath(testNodeID), replyRaw(403, "Permission denied"))
	_, err := f.client().ReadLedger(context.Background(), ledgerNS, testNodeID)
	if err == nil {
		t.Fatal("a 403 read as an empty ledger")
	}
}

func TestLedgerNodes(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{
		{Path: LedgerPath("n1")}, {Path: LedgerPath("n2")}, {Path: LedgerPrefix},
	}))
	ids, err := f.client().LedgerNodes(context.Background(), ledgerNS)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"n1", "n2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("LedgerNodes = %v, want %v", ids, want)
	}
	q := f.requests("/v1/vars")[0].Query
	if q.Get("prefix") != LedgerPrefix || q.Get("namespace") != ledgerNS {
		t.Errorf("list query = %v", q)
	}
}

// addItem is a change func that adds one reservation to whatever it is given.
func addItem(t *testing.T, nodeID, name string, calls *[]map[string]string) func(map[string]string) (map[string]string, error) {
	return func(items map[string]string) (map[string]string, error) {
		*calls = append(*calls, items)
		l, err := ledger.Decode(nodeID, items)
		if err != nil {
			return nil, err
		}
		l.Reservations[name] = ledger.Reservation{Request: capacity.Resources{CPU: 10}, CreatedAt: t0}
		return l.Encode()
	}
}

// A lost check-and-set race re-reads the ledger and re-applies the change
// to what the other writer left: nothing it wrote is lost.
func TestUpdateLedgerRetriesConflicts(t *testing.T) {
	f := newFakeNomad(t)
	initial := ledgerItems(t, testNodeID, map[string]ledger.Reservation{"first": {Request: capacity.Resources{CPU: 1}, CreatedAt: t0}})
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), initial, 10)
	conflicts := 0
	v.interfere = func(v *fakeVar) bool {
		if conflicts == 2 {
			return false
		}
		conflicts++
		// The other writer adds its own reservation.
		v.items = ledgerItems(t, testNodeID, map[string]ledger.Reservation{
			"first":                            {Request: capacity.Resources{CPU: 1}, CreatedAt: t0},
			"other-" + strconv.Itoa(conflicts): {Request: capacity.Resources{CPU: 2}, CreatedAt: t0},
		})
		return true
	}
	var calls []map[string]string
	synctest.Test(t, func(t *testing.T) {
		if err := f.inProcessClient(t).UpdateLedger(context.Background(), ledgerNS, testNodeID, addItem(t, testNodeID, "mine", &calls)); err != nil {
			t.Fatalf("UpdateLedger: %v", err)
		}
	})

	items, index, writes, reads := v.snapshot()
	if len(writes) != 3 {
		t.Fatalf("%d writes, want 3 (two conflicts, then success): %+v", len(writes), writes)
	}
	if reads != 3 || len(calls) != 3 {
		t.Errorf("%d reads and %d change calls, want 3 of each: one per attempt", reads, len(calls))
	}
	// Each write names the index of the read before it: 10, then the index
	// the other writer left (100, then 101).
	for i, want := range []uint64{10, 100, 101} {
		if writes[i].Method != http.MethodPut || writes[i].CAS != want {
			t.Errorf("write %d = %s cas=%d, want PUT cas=%d", i, writes[i].Method, writes[i].CAS, want)
		}
	}
	for i, want := range []int{409, 409, 200} {
		if writes[i].Status != want {
			t.Errorf("write %d answered %d, want %d", i, writes[i].Status, want)
		}
	}
	got := decodeItems(t, testNodeID, items)
	for _, name := range []string{"first", "other-2", "mine"} {
		if _, ok := got.Reservations[name]; !ok {
			t.Errorf("final ledger lacks %q: %v", name, items)
		}
	}
	if len(got.Reservations) != 3 {
		t.Errorf("final ledger = %v, want first, other-2 and mine", items)
	}
	if index != 102 {
		t.Errorf("final index %d, want 102", index)
	}
	if _, ok := calls[2]["other-2"]; !ok {
		t.Errorf("the last attempt's change saw %v, not the other writer's latest ledger", calls[2])
	}
}

func TestUpdateLedgerGivesUpUnderContention(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), nil, 0)
	v.interfere = func(v *fakeVar) bool {
		v.items = ledgerItems(t, testNodeID, map[string]ledger.Reservation{"theirs": {CreatedAt: t0}})
		return true
	}
	var calls []map[string]string
	var err error
	var elapsed time.Duration
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err = f.inProcessClient(t).UpdateLedger(context.Background(), ledgerNS, testNodeID, addItem(t, testNodeID, "mine", &calls))
		elapsed = time.Since(start)
	})
	if !errors.Is(err, ErrLedgerContention) {
		t.Fatalf("err = %v, want ErrLedgerContention", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "contention") || !strings.Contains(msg, testNodeID) {
		t.Errorf("message %q does not mention contention and the node", msg)
	}
	_, _, writes, reads := v.snapshot()
	if len(writes) != ledgerWriteAttempts || reads != ledgerWriteAttempts || len(calls) != ledgerWriteAttempts {
		t.Errorf("%d writes, %d reads, %d change calls; want %d of each", len(writes), reads, len(calls), ledgerWriteAttempts)
	}
	// The first write creates (cas=0); later ones name what was read.
	if writes[0].CAS != 0 || writes[1].CAS == 0 {
		t.Errorf("write indexes %d, %d; want 0 then the other writer's index", writes[0].CAS, writes[1].CAS)
	}
	// Backoff is jittered and grows: well over a few seconds in total on
	// the fake clock, so that contenders spread out.
	if elapsed < 5*time.Second {
		t.Errorf("gave up after %s of backoff, want growing waits between tries", elapsed)
	}
}

func TestUpdateLedgerContextEndsDuringBackoff(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), nil, 0)
	v.interfere = func(v *fakeVar) bool {
		v.items = map[string]string{}
		return true
	}
	var calls []map[string]string
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := f.inProcessClient(t).UpdateLedger(ctx, ledgerNS, testNodeID, addItem(t, testNodeID, "mine", &calls))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want DeadlineExceeded", err)
		}
	})
	if _, _, writes, _ := v.snapshot(); len(writes) >= ledgerWriteAttempts {
		t.Errorf("%d writes: the loop did not stop with the context", len(writes))
	}
}

func TestUpdateLedgerChangeErrorStops(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), map[string]string{}, 5)
	boom := errors.New("does not fit")
	calls := 0
	err := f.client().UpdateLedger(context.Background(), ledgerNS, testNodeID, func(map[string]string) (map[string]string, error) {
		calls++
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the change func's error", err)
	}
	if _, _, writes, reads := v.snapshot(); len(writes) != 0 || reads != 1 || calls != 1 {
		t.Errorf("%d writes, %d reads, %d calls; want no write after one read and one call", len(writes), reads, calls)
	}
}

func TestUpdateLedgerEmptyDeletes(t *testing.T) {
	f := newFakeNomad(t)
	initial := ledgerItems(t, testNodeID, map[string]ledger.Reservation{"db": {CreatedAt: t0}})
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), initial, 77)
	err := f.client().UpdateLedger(context.Background(), ledgerNS, testNodeID, func(items map[string]string) (map[string]string, error) {
		if !reflect.DeepEqual(items, initial) {
			t.Errorf("change got %v, want the stored items", items)
		}
		return map[string]string{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	items, _, writes, _ := v.snapshot()
	if len(writes) != 1 || writes[0].Method != http.MethodDelete || writes[0].CAS != 77 {
		t.Fatalf("writes = %+v, want one DELETE with cas=77", writes)
	}
	if items != nil {
		t.Errorf("variable still holds %v", items)
	}
}

func TestUpdateLedgerAbsentCreates(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), nil, 0)
	var calls []map[string]string
	if err := f.client().UpdateLedger(context.Background(), ledgerNS, testNodeID, addItem(t, testNodeID, "db", &calls)); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] == nil || len(calls[0]) != 0 {
		t.Errorf("change got %#v, want one call with an empty non-nil map", calls)
	}
	items, _, writes, _ := v.snapshot()
	if len(writes) != 1 || writes[0].Method != http.MethodPut || writes[0].CAS != 0 {
		t.Fatalf("writes = %+v, want one PUT with cas=0", writes)
	}
	if _, ok := decodeItems(t, testNodeID, items).Reservations["db"]; !ok {
		t.Errorf("created variable = %v", items)
	}
}

// Nothing to store in a ledger that does not exist: no request at all.
func TestUpdateLedgerAbsentAndEmptyWritesNothing(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), nil, 0)
	err := f.client().UpdateLedger(context.Background(), ledgerNS, testNodeID, func(map[string]string) (map[string]string, error) {
		return map[string]string{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
		t.Errorf("writes = %+v, want none", writes)
	}
}

// A delete that loses the race is retried like an update.
func TestUpdateLedgerDeleteConflictRetries(t *testing.T) {
	f := newFakeNomad(t)
	initial := ledgerItems(t, testNodeID, map[string]ledger.Reservation{"db": {CreatedAt: t0}})
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), initial, 3)
	once := false
	v.interfere = func(*fakeVar) bool {
		if once {
			return false
		}
		once = true
		return true
	}
	synctest.Test(t, func(t *testing.T) {
		err := f.inProcessClient(t).UpdateLedger(context.Background(), ledgerNS, testNodeID, func(map[string]string) (map[string]string, error) {
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	items, _, writes, _ := v.snapshot()
	if len(writes) != 2 || writes[0].Status != 409 || writes[1].Method != http.MethodDelete || writes[1].CAS != 100 {
		t.Errorf("writes = %+v, want a conflicting DELETE, then DELETE cas=100", writes)
	}
	if items != nil {
		t.Errorf("variable still holds %v", items)
	}
}

// Any other write failure is returned at once: writes are not retried.
func TestUpdateLedgerWriteErrorNotRetried(t *testing.T) {
	for _, status := range []int{403, 500} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			f := newFakeNomad(t)
			v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), nil, 0)
			v.failWrite = status
			var calls []map[string]string
			err := f.client().UpdateLedger(context.Background(), ledgerNS, testNodeID, addItem(t, testNodeID, "db", &calls))
			if statusCode(err) != status || !strings.Contains(err.Error(), "writing the reservation ledger of node "+testNodeID) {
				t.Errorf("err = %v, want status %d naming the node", err, status)
			}
			if errors.Is(err, ErrLedgerContention) {
				t.Errorf("err = %v is not contention", err)
			}
			if _, _, writes, _ := v.snapshot(); len(writes) != 1 {
				t.Errorf("%d writes, want 1", len(writes))
			}
		})
	}
}
