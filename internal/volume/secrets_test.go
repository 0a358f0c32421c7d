package volume

import (
	"slices"
	"testing"
)

func TestRedactSecrets(t *testing.T) {
	t.Parallel()
	v := &Volume{Secrets: map[string]string{"a": "tok", "b": "tok-longer", "c": "", "d": "tok"}}
	got := v.SecretValues()
	if want := []string{"tok-longer", "tok"}; !slices.Equal(got, want) {
		t.Fatalf("SecretValues = %q, want %q", got, want)
	}
	text := RedactSecrets(`plugin: bad credentials "tok-longer" (tok)`, got)
	if want := `plugin: bad credentials "(secret value)" ((secret value))`; text != want {
		t.Errorf("RedactSecrets = %q, want %q", text, want)
	}
	if (&Volume{}).SecretValues() != nil {
		t.Error("a volume without secrets has secret values")
	}
}
