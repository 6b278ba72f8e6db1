package governance

import (
	"strings"
	"testing"
)

func TestSiblingText(t *testing.T) {
	self := Scope{Allow: []string{"src/**"}}
	sibs := []Sibling{
		{Name: "beta", Status: "running", Scope: Scope{Allow: []string{"src/api/**"}}, Changed: []string{"src/api/h.go"}},
		{Name: "gamma", Status: "idle", Scope: Scope{Allow: []string{"src/db/**"}}},
		{Name: "delta", Status: "idle", Scope: Scope{Allow: []string{"docs/**"}}, Changed: []string{"docs/a.md"}},
	}
	txt := SiblingText(self, sibs)
	for _, want := range []string{
		"(3)", "beta has already changed 1 file(s) inside your scope: (src/api/h.go)",
		"gamma's scope overlaps yours (src/db/** vs src/**)", "delta (idle",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("missing %q in:\n%s", want, txt)
		}
	}
	if strings.Count(txt, "⚠") != 2 {
		t.Errorf("want two warnings:\n%s", txt)
	}
	if SiblingText(self, nil) != "" {
		t.Error("text without siblings")
	}
}

func TestSiblingsFromHarness(t *testing.T) {
	h := openHarness(t)
	a := newSession(t, h, "alpha", "/p", &Scope{Allow: []string{"src/**"}})
	b := newSession(t, h, "beta", "/p", &Scope{Allow: []string{"src/api/**"}})
	newSession(t, h, "gamma", "/q", nil)
	mustAppend(t, h, b.ID, snapshot("src/api/x.go"))
	sibs, err := Siblings(h, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sibs) != 1 || sibs[0].Name != "beta" || sibs[0].Changed[0] != "src/api/x.go" {
		t.Fatalf("siblings %+v", sibs)
	}
	bs, err := BuildBootstrap(h, a.ID, nil, "executor:default")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bs.Text, "Your scope: only src/**") || !strings.Contains(bs.Text, "beta has already changed") {
		t.Fatalf("bootstrap:\n%s", bs.Text)
	}
}
