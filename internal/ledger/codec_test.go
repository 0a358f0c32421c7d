package ledger

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

const nodeID = "77e393ef-4c1a-4b7e-9d2a-0123456789ab"

var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

func res(cpu, mem, disk int64) capacity.Resources {
	return capacity.Resources{CPU: cpu, MemoryMB: mem, DiskMB: disk}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		ledger Ledger
	}{
		{"empty", Ledger{NodeID: nodeID, Reservations: map[string]Reservation{}}},
		{"bare reservation", Ledger{NodeID: nodeID, Reservations: map[string]Reservation{
			"db": {Request: res(1000, 4096, 0), CreatedAt: t0},
		}}},
		{"annotations and consumers", Ledger{NodeID: nodeID, Reservations: map[string]Reservation{
			"db": {
				Request:     res(1000, 4096, 20480),
				Annotations: map[string]string{"team": "data", "ticket": "OPS-1"},
				CreatedAt:   t0,
				Consumers: map[string]capacity.Resources{
					"instance:default/web":  res(500, 2048, 0),
					"volume:default/pg-001": res(0, 0, 10240),
				},
			},
			"cache": {Request: res(0, 512, 0), CreatedAt: t0.Add(time.Hour)},
		}}},
		{"names with unusual characters", Ledger{NodeID: nodeID, Reservations: map[string]Reservation{
			`we"ird / näme`: {Request: res(1, 1, 1), CreatedAt: t0, Annotations: map[string]string{"<k>": "&v\n"}},
		}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items, err := tc.ledger.Encode()
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if len(items) != len(tc.ledger.Reservations) {
				t.Fatalf("Encode gave %d items for %d reservations", len(items), len(tc.ledger.Reservations))
			}
			got, err := Decode(nodeID, items)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.ledger) {
				t.Errorf("round trip:\n got %#v\nwant %#v", got, tc.ledger)
			}
			again, err := got.Encode()
			if err != nil {
				t.Fatalf("second Encode: %v", err)
			}
			if !reflect.DeepEqual(again, items) {
				t.Errorf("encoding is not stable:\n%v\n%v", items, again)
			}
		})
	}
}

// TestEncodeLayout pins the stored bytes: other tools (and older providers)
// read these items, so a layout change must be deliberate.
func TestEncodeLayout(t *testing.T) {
	l := Ledger{NodeID: nodeID, Reservations: map[string]Reservation{"db": {
		Request:     res(1000, 4096, 0),
		Annotations: map[string]string{"z": "1", "a": "2"},
		CreatedAt:   time.Date(2026, 1, 2, 4, 4, 5, 0, time.FixedZone("CET", 3600)),
		Consumers:   map[string]capacity.Resources{"volume:default/v": res(0, 0, 0), "instance:default/web": res(500, 1024, 0)},
	}}}
	items, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"request":{"cpu":1000,"memory_mb":4096,"disk_mb":0},"annotations":{"a":"2","z":"1"},` +
		`"created_at":"2026-01-02T03:04:05Z","consumers":{"instance:default/web":{"cpu":500,"memory_mb":1024,"disk_mb":0},` +
		`"volume:default/v":{"cpu":0,"memory_mb":0,"disk_mb":0}}}`
	if items["db"] != want {
		t.Errorf("item:\n got %s\nwant %s", items["db"], want)
	}
}

func TestDecodeRejects(t *testing.T) {
	const good = `{"version":1,"request":{"cpu":1,"memory_mb":2,"disk_mb":3},"created_at":"2026-01-02T03:04:05Z"}`
	cases := []struct {
		name  string
		items map[string]string
		want  string // substring of the error
	}{
		{"not JSON", map[string]string{"ok": good, "db": "{nope"}, `node 77e393ef, item "db": invalid JSON`},
		{"array", map[string]string{"db": `[1]`}, `item "db": invalid JSON`},
		{"trailing data", map[string]string{"db": good + `{}`}, `item "db": invalid JSON: data after`},
		{"misspelled field", map[string]string{"db": strings.Replace(good, "memory_mb", "memory", 1)}, `unknown field "memory"`},
		{"string amount", map[string]string{"db": strings.Replace(good, `"cpu":1`, `"cpu":"1"`, 1)}, `item "db": invalid JSON`},
		{"newer format", map[string]string{"db": strings.Replace(good, `"version":1`, `"version":2`, 1)}, "format version 2 by a newer berth provider"},
		{"no version", map[string]string{"db": strings.Replace(good, `"version":1,`, ``, 1)}, "missing or invalid format version 0"},
		{"no request", map[string]string{"db": `{"version":1,"created_at":"2026-01-02T03:04:05Z"}`}, `missing "request"`},
		{"no created_at", map[string]string{"db": `{"version":1,"request":{"cpu":1,"memory_mb":2,"disk_mb":3}}`}, `missing "created_at"`},
		{"negative request", map[string]string{"db": strings.Replace(good, `"disk_mb":3`, `"disk_mb":-3`, 1)}, "negative disk request -3"},
		{"negative charge", map[string]string{"db": strings.TrimSuffix(good, `}`) + `,"consumers":{"x":{"cpu":-1,"memory_mb":0,"disk_mb":0}}}`}, `consumer "x" has a negative cpu charge -1`},
		{"empty consumer key", map[string]string{"db": strings.TrimSuffix(good, `}`) + `,"consumers":{"":{"cpu":1,"memory_mb":0,"disk_mb":0}}}`}, "empty consumer key"},
		{"empty item key", map[string]string{"": good}, "empty reservation name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(nodeID, tc.items)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, items := range []map[string]string{nil, {}} {
		l, err := Decode(nodeID, items)
		if err != nil || l.NodeID != nodeID || l.Reservations == nil || len(l.Reservations) != 0 {
			t.Errorf("Decode(%v) = %#v, %v; want an empty ledger", items, l, err)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	cases := []struct {
		name string
		r    Reservation
		key  string
		want string
	}{
		{"negative", Reservation{Request: res(0, -1, 0), CreatedAt: t0}, "db", "negative memory request -1"},
		{"empty name", Reservation{CreatedAt: t0}, "", "empty reservation name"},
		{"time out of JSON range", Reservation{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, "db", "year outside of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := Ledger{NodeID: nodeID, Reservations: map[string]Reservation{tc.key: tc.r}}
			_, err := l.Encode()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Encode error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSize(t *testing.T) {
	one := Ledger{NodeID: nodeID, Reservations: map[string]Reservation{"db": {Request: res(1, 2, 3), CreatedAt: t0}}}
	two := one.Clone()
	two.Reservations["cache"] = Reservation{Request: res(4, 5, 6), CreatedAt: t0, Annotations: map[string]string{"k": "v"}}
	cases := []struct {
		name   string
		ledger Ledger
	}{
		{"empty", Ledger{NodeID: nodeID}},
		{"one", one},
		{"two", two},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items, err := tc.ledger.Encode()
			if err != nil {
				t.Fatal(err)
			}
			want := 0 // as Nomad counts: every key plus every value
			for k, v := range items {
				want += len(k) + len(v)
			}
			if got := tc.ledger.Size(); got != want {
				t.Errorf("Size() = %d, want %d", got, want)
			}
		})
	}
}

func TestCheckSize(t *testing.T) {
	base := Ledger{NodeID: nodeID, Reservations: map[string]Reservation{"db": {CreatedAt: t0}}}
	overhead := base.Size()
	cases := []struct {
		name  string
		extra int // bytes of annotation value added on top of a minimal item
		fits  bool
	}{
		{"exactly the limit", MaxVariableBytes - overhead, true},
		{"one byte over", MaxVariableBytes - overhead + 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := base.Clone()
			// `"annotations":{"a":""},` adds 23 bytes before the value itself.
			l.Reservations["db"] = Reservation{CreatedAt: t0, Annotations: map[string]string{"a": strings.Repeat("x", tc.extra-23)}}
			err := l.CheckSize("vm")
			var tooLarge *TooLargeError
			if tc.fits != (err == nil) || (!tc.fits && !errors.As(err, &tooLarge)) {
				t.Fatalf("CheckSize() = %v at size %d", err, l.Size())
			}
			if !tc.fits {
				want := `the reservation ledger of node "vm" (77e393ef) would take 65537 bytes, more than the 65536 a Nomad Variable can hold: ` +
					`use fewer reservations, shorter names or fewer annotations on this node`
				if err.Error() != want {
					t.Errorf("message:\n got %s\nwant %s", err, want)
				}
			}
		})
	}
}
