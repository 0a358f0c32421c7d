package jobspec

import (
	"slices"
	"strings"
	"testing"
)

const artifactJob = `
job "j" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      artifact {
        source = "git::git@example.com:org/repo.git"
        options {
          sshkey = "c3NoLWtleS1zM2NyM3Q="
          ref    = "main"
        }
        headers {
          Authorization = "Bearer h3ad3r-s3cr3t"
        }
      }
    }
  }
}`

// An artifact's options and headers drift by key, never by value, also
// when the artifact list is compared whole.
func TestDriftHidesArtifactSecrets(t *testing.T) {
	want := parse(t, Spec{Source: artifactJob})
	live := parse(t, Spec{Source: artifactJob})
	live.Canonicalize()
	if d := Drift(want, live); len(d) != 0 {
		t.Fatalf("a job drifts from itself: %v", d)
	}
	art := live.TaskGroups[0].Tasks[0].Artifacts[0]
	art.GetterOptions["sshkey"] = "b3RoZXIta2V5LXMzY3IzdA=="
	delete(art.GetterOptions, "ref")
	art.GetterHeaders["Authorization"] = "Bearer 0ther-s3cr3t"
	got := Drift(want, live)
	for _, w := range []string{
		`group "g" / task "t" / artifact[0].options: {"sshkey":"(sensitive value)"} → {"ref":"(sensitive value)","sshkey":"(sensitive value)"}`,
		`group "g" / task "t" / artifact[0].headers: {"Authorization":"(sensitive value)"} → {"Authorization":"(sensitive value)"} (a sensitive value differs)`,
	} {
		if !slices.Contains(got, w) {
			t.Errorf("drift %q not reported in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	// A second artifact in Nomad: the list is compared whole.
	c := *art
	live.TaskGroups[0].Tasks[0].Artifacts = append(live.TaskGroups[0].Tasks[0].Artifacts, &c)
	got = append(got, Drift(want, live)...)
	if len(got) != 3 || !strings.Contains(got[2], "artifact: [") {
		t.Errorf("drift of a longer list: %q", got)
	}
	for _, line := range got {
		for _, secret := range []string{"c3NoLWtleS1zM2NyM3Q=", "b3RoZXIta2V5LXMzY3IzdA==", "h3ad3r-s3cr3t", "0ther-s3cr3t", `"main"`} {
			if strings.Contains(line, secret) {
				t.Errorf("drift shows a sensitive value %q: %s", secret, line)
			}
		}
	}
}
