package volume

import (
	"testing"
)

func TestCheckCapacityRange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lo, hi int64
		ok     bool
	}{{0, 0, true}, {0, 5, true}, {5, 5, true}, {5, 0, false}, {6, 5, false}} {
		if err := CheckCapacityRange(c.lo, c.hi); (err == nil) != c.ok {
			t.Errorf("CheckCapacityRange(%d, %d) = %v", c.lo, c.hi, err)
		}
	}
}
