package ledger

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// Strategy is how Pick chooses among the nodes that can take a reservation.
type Strategy string

const (
	// Binpack fills nodes up: it picks the node left with the least free
	// capacity, keeping other nodes whole for large requests (Nomad's
	// default scheduler algorithm has the same aim).
	Binpack Strategy = "binpack"
	// Spread picks the node left with the most free capacity, so
	// reservations land on different nodes.
	Spread Strategy = "spread"
)

// Strategies is every Strategy, for schema validators and messages.
func Strategies() []Strategy { return []Strategy{Binpack, Spread} }

// Candidate is one node Pick may choose, with what the caller read about it.
type Candidate struct {
	Node   NodeState
	Ledger Ledger
	// Status is the Nomad node status: "ready", "down", "initializing", ...
	Status   string
	Eligible bool
	Draining bool
}

// Reason is why Pick passed over a node.
type Reason string

// The reasons, in the order a node is tested and messages list them. A node
// that fails several tests counts under the first.
const (
	ReasonNotReady     Reason = "not ready"
	ReasonIneligible   Reason = "ineligible"
	ReasonDraining     Reason = "draining"
	ReasonNotEnoughCPU Reason = "not enough cpu"
	ReasonNotEnoughMem Reason = "not enough memory"
	ReasonNotEnoughDsk Reason = "not enough disk"
)

// Reasons is every Reason in message order.
func Reasons() []Reason {
	return []Reason{ReasonNotReady, ReasonIneligible, ReasonDraining, ReasonNotEnoughCPU, ReasonNotEnoughMem, ReasonNotEnoughDsk}
}

var shortReason = map[capacity.Dimension]Reason{
	capacity.CPU:    ReasonNotEnoughCPU,
	capacity.Memory: ReasonNotEnoughMem,
	capacity.Disk:   ReasonNotEnoughDsk,
}

// NoCandidateError says no node can take a reservation, and why.
type NoCandidateError struct {
	// Nodes is how many candidates there were.
	Nodes int
	// Counts is how many candidates were rejected for each reason. It is
	// kept apart from Rejected so that candidates sharing an ID still count.
	Counts map[Reason]int
	// Rejected maps each candidate's node ID to why it was passed over, for
	// callers that want to log the detail behind the summary.
	Rejected map[string]Reason
}

func (e *NoCandidateError) Error() string {
	const prefix = "no node can take the reservation: "
	if e.Nodes == 0 {
		return prefix + "there are no nodes"
	}
	var parts []string
	for _, r := range Reasons() {
		if n := e.Counts[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	noun := "nodes"
	if e.Nodes == 1 {
		noun = "node"
	}
	return fmt.Sprintf("%s%d %s: %s", prefix, e.Nodes, noun, strings.Join(parts, ", "))
}

// reject returns why c cannot take req, or "" when it can. Capacity uses the
// same test as Reserve for a new reservation, so a picked node is one
// Reserve accepts.
func reject(c Candidate, req capacity.Resources) Reason {
	switch {
	case c.Status != "ready":
		return ReasonNotReady
	case !c.Eligible:
		return ReasonIneligible
	case c.Draining:
		return ReasonDraining
	}
	if d, short := firstShort(Free(c.Node, c.Ledger), capacity.Resources{}, req); short {
		return shortReason[d]
	}
	return ""
}

// Score is how much of a node would stay free after placing req on it, as
// one number comparable across nodes of different sizes: the mean, over the
// dimensions in which the node has allocatable capacity, of
//
//	clamp(free − req, 0, allocatable) / allocatable
//
// 0 means full, 1 means empty. The mean rather than the sum keeps a node
// that reports no disk (a dimension left out) comparable with one that does;
// the clamp counts an already over-committed dimension as full rather than
// as "less than full". A node with no allocatable capacity at all scores 0.
// The value is exact (a rational), so equal scores tie exactly and the tie
// break by node ID is deterministic.
func Score(n NodeState, l Ledger, req capacity.Resources) *big.Rat {
	after := Free(n, l).Sub(req)
	sum := new(big.Rat)
	dims := int64(0)
	for _, d := range capacity.Dimensions() {
		alloc := d.Of(n.Allocatable)
		if alloc <= 0 {
			continue
		}
		left := min(max(d.Of(after), 0), alloc)
		sum.Add(sum, big.NewRat(left, alloc))
		dims++
	}
	if dims == 0 {
		return sum
	}
	return sum.Quo(sum, big.NewRat(dims, 1))
}

// Pick chooses the node for a reservation of req when the user named none.
// Only nodes that are ready, eligible, not draining and have room for req
// are considered; Binpack takes the lowest Score, Spread the highest, and
// equal scores go to the lowest node ID. With no such node it returns a
// *NoCandidateError.
func Pick(cands []Candidate, req capacity.Resources, s Strategy) (string, error) {
	if !slices.Contains(Strategies(), s) {
		return "", fmt.Errorf("unknown placement strategy %q (one of %v)", s, Strategies())
	}
	if d, ok := negative(req); ok {
		return "", fmt.Errorf("the %s request cannot be negative (got %d)", d, d.Of(req))
	}
	var (
		bestID    string
		bestScore *big.Rat
		counts    = map[Reason]int{}
		rejected  = map[string]Reason{}
	)
	for _, c := range cands {
		if r := reject(c, req); r != "" {
			counts[r]++
			rejected[c.Node.ID] = r
			continue
		}
		score := Score(c.Node, c.Ledger, req)
		if bestScore == nil || better(score, c.Node.ID, bestScore, bestID, s) {
			bestID, bestScore = c.Node.ID, score
		}
	}
	if bestScore == nil {
		return "", &NoCandidateError{Nodes: len(cands), Counts: counts, Rejected: rejected}
	}
	return bestID, nil
}

// better reports whether (score, id) beats the best so far under s.
func better(score *big.Rat, id string, best *big.Rat, bestID string, s Strategy) bool {
	c := score.Cmp(best)
	if s == Spread {
		c = -c
	}
	return c < 0 || (c == 0 && id < bestID)
}
