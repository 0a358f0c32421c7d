package aclpolicy

import (
	"strings"
	"testing"
)

func TestJobACLCheck(t *testing.T) {
	for _, c := range []struct {
		j     JobACL
		field string
	}{
		{JobACL{Namespace: "default"}, ""},
		{JobACL{Namespace: "default", JobID: "web"}, ""},
		{JobACL{Namespace: "default", JobID: "web", Group: "g", Task: "t"}, ""},
		{JobACL{JobID: "web"}, "namespace"},
		{JobACL{Namespace: "default", Group: "g"}, "group"},
		{JobACL{Namespace: "default", JobID: "web", Task: "t"}, "task"},
	} {
		field, err := c.j.Check()
		if field != c.field || (err != nil) != (c.field != "") {
			t.Errorf("%+v: got %q %v, want %q", c.j, field, err, c.field)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{"ops-read": true, "a": true, "": false, "has_underscore": false, "dot.ted": false,
		strings.Repeat("a", 128): true, strings.Repeat("a", 129): false} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("%q: %v, want ok=%v", name, err, ok)
		}
	}
}
