package taskconfig

import (
	"reflect"
	"testing"
)

func TestStringList(t *testing.T) {
	cases := []struct {
		in   any
		want []string
		ok   bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, true},
		{[]any{"a", "b"}, []string{"a", "b"}, true},
		{[]any{}, []string{}, true},
		{[]any{"a", 1.0}, nil, false},
		{"a", nil, false},
		{nil, nil, false},
	}
	for _, tc := range cases {
		got, ok := StringList(tc.in)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("StringList(%#v) = %#v, %v; want %#v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	src := []string{"x"}
	got, _ := StringList(src)
	got[0] = "changed"
	if src[0] != "x" {
		t.Fatal("StringList must copy its input")
	}
}
