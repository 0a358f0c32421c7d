package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// MaxVariableBytes is the most a Nomad Variable's items may take, counted as
// Nomad counts them (nomad/structs VariableItems.Size: the lengths of every
// key and value). Nomad rejects a larger write, so the ledger refuses a
// change that would not fit and says why in its own words.
const MaxVariableBytes = 65536

// formatVersion is written into every item. Decode refuses a newer version:
// an older provider that rewrote such an item would silently drop whatever
// the newer one added. Any change to the item layout bumps it.
const formatVersion = 1

// wireResources is capacity.Resources as stored. It lives here rather than
// as JSON tags on capacity.Resources so the stored layout is owned, and
// versioned, by the package that stores it.
type wireResources struct {
	CPU      int64 `json:"cpu"`
	MemoryMB int64 `json:"memory_mb"`
	DiskMB   int64 `json:"disk_mb"`
}

// wireReservation is one item's value. Field order is the key order in the
// JSON, and encoding/json sorts map keys, so equal ledgers encode to equal
// bytes and a no-op rewrite does not look like a change.
type wireReservation struct {
	Version     int                      `json:"version"`
	Request     *wireResources           `json:"request"`
	Annotations map[string]string        `json:"annotations,omitempty"`
	CreatedAt   *time.Time               `json:"created_at"`
	Consumers   map[string]wireResources `json:"consumers,omitempty"`
}

func toWire(r capacity.Resources) wireResources {
	return wireResources{CPU: r.CPU, MemoryMB: r.MemoryMB, DiskMB: r.DiskMB}
}

func fromWire(w wireResources) capacity.Resources {
	return capacity.Resources{CPU: w.CPU, MemoryMB: w.MemoryMB, DiskMB: w.DiskMB}
}

// Decode reads a node's ledger from its variable items. Absent or empty
// items are an empty ledger. An item that is not a valid reservation is an
// error naming the item: guessing would risk treating held capacity as free.
func Decode(nodeID string, items map[string]string) (Ledger, error) {
	l := Ledger{NodeID: nodeID, Reservations: make(map[string]Reservation, len(items))}
	for name, value := range items {
		r, err := decodeReservation(value)
		if err == nil {
			err = validate(name, r)
		}
		if err != nil {
			return Ledger{}, fmt.Errorf("reservation ledger of node %s, item %q: %w", shortID(nodeID), name, err)
		}
		l.Reservations[name] = r
	}
	return l, nil
}

func decodeReservation(value string) (Reservation, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(value)))
	// A misspelled field (say "memory" for "memory_mb") would otherwise decode
	// as zero and quietly hand the node's capacity back.
	dec.DisallowUnknownFields()
	var w wireReservation
	if err := dec.Decode(&w); err != nil {
		return Reservation{}, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Reservation{}, errors.New("invalid JSON: data after the reservation object")
	}
	switch {
	case w.Version > formatVersion:
		return Reservation{}, fmt.Errorf("written in format version %d by a newer berth provider (this one reads up to %d); upgrade the provider",
			w.Version, formatVersion)
	case w.Version < 1:
		return Reservation{}, fmt.Errorf("missing or invalid format version %d", w.Version)
	case w.Request == nil:
		return Reservation{}, errors.New(`missing "request"`)
	case w.CreatedAt == nil:
		return Reservation{}, errors.New(`missing "created_at"`)
	}
	r := Reservation{
		Request:     fromWire(*w.Request),
		Annotations: cloneMap(w.Annotations),
		CreatedAt:   w.CreatedAt.UTC(),
	}
	if len(w.Consumers) > 0 {
		r.Consumers = make(map[string]capacity.Resources, len(w.Consumers))
		for k, c := range w.Consumers {
			r.Consumers[k] = fromWire(c)
		}
	}
	return r, nil
}

// validate holds the rules Decode and Encode share, so that whatever Encode
// writes, Decode reads back.
func validate(name string, r Reservation) error {
	if name == "" {
		return errors.New("empty reservation name")
	}
	if d, ok := negative(r.Request); ok {
		return fmt.Errorf("negative %s request %d", d, d.Of(r.Request))
	}
	for k, c := range r.Consumers {
		if k == "" {
			return errors.New("empty consumer key")
		}
		if d, ok := negative(c); ok {
			return fmt.Errorf("consumer %q has a negative %s charge %d", k, d, d.Of(c))
		}
	}
	return nil
}

// negative returns the first dimension in which r is below zero.
func negative(r capacity.Resources) (capacity.Dimension, bool) {
	for _, d := range capacity.Dimensions() {
		if d.Of(r) < 0 {
			return d, true
		}
	}
	return "", false
}

// Encode renders the ledger as variable items, one per reservation. An
// empty ledger gives no items; Nomad refuses an item-less variable, so the
// caller deletes the variable instead of writing it.
func (l Ledger) Encode() (map[string]string, error) {
	items := make(map[string]string, len(l.Reservations))
	for name, r := range l.Reservations {
		value, err := encodeReservation(name, r)
		if err != nil {
			return nil, fmt.Errorf("reservation ledger of node %s, item %q: %w", shortID(l.NodeID), name, err)
		}
		items[name] = value
	}
	return items, nil
}

// EncodeItem renders one reservation as its item's value, exactly as
// Encode stores it; hold jobs mirror it in their meta.
func EncodeItem(name string, r Reservation) (string, error) { return encodeReservation(name, r) }

// DecodeItem reads one item's value with the rules Decode applies.
func DecodeItem(name, value string) (Reservation, error) {
	r, err := decodeReservation(value)
	if err == nil {
		err = validate(name, r)
	}
	return r, err
}

func encodeReservation(name string, r Reservation) (string, error) {
	if err := validate(name, r); err != nil {
		return "", err
	}
	req := toWire(r.Request)
	created := r.CreatedAt.UTC()
	w := wireReservation{
		Version:     formatVersion,
		Request:     &req,
		Annotations: cloneMap(r.Annotations),
		CreatedAt:   &created,
	}
	if len(r.Consumers) > 0 {
		w.Consumers = make(map[string]wireResources, len(r.Consumers))
		for k, c := range r.Consumers {
			w.Consumers[k] = toWire(c)
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Size is how many bytes the encoded items take (every key plus every
// value), the quantity Nomad compares with MaxVariableBytes. A reservation
// that cannot be encoded counts only its key; Encode reports it anyway.
func (l Ledger) Size() int {
	n := 0
	for name, r := range l.Reservations {
		n += len(name)
		if v, err := encodeReservation(name, r); err == nil {
			n += len(v)
		}
	}
	return n
}

// TooLargeError says a change would make the ledger bigger than a Nomad
// Variable can hold.
type TooLargeError struct {
	NodeName, NodeID string
	Size             int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the reservation ledger of node %s would take %d bytes, more than the %d a Nomad Variable can hold: "+
		"use fewer reservations, shorter names or fewer annotations on this node",
		nodeLabel(e.NodeName, e.NodeID), e.Size, MaxVariableBytes)
}

// CheckSize returns a *TooLargeError when the encoded ledger would not fit
// in one Nomad Variable.
func (l Ledger) CheckSize(nodeName string) error {
	if size := l.Size(); size > MaxVariableBytes {
		return &TooLargeError{NodeName: nodeName, NodeID: l.NodeID, Size: size}
	}
	return nil
}
