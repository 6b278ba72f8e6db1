package app

import (
	"slices"
	"testing"
)

// TestParseAttempts reads /attempts' words: the event, the lists, a quoted check, the prompt;
// a value after "model= " counts, and a prompt without models is refused.
func TestParseAttempts(t *testing.T) {
	req, err := parseAttempts(`@12 model= a,b executor=default,codex check='go test ./...' fix the "flaky" test`)
	if err != nil {
		t.Fatal(err)
	}
	if req.Seq != 12 || !slices.Equal(req.Models, []string{"a", "b"}) || !slices.Equal(req.Executors, []string{"default", "codex"}) ||
		req.Check != "go test ./..." || req.Prompt != `fix the "flaky" test` || len(req.Pairs()) != 4 {
		t.Fatalf("parsed %+v", req)
	}
	for _, bad := range []string{"just a prompt", "model=a,b", "@x model=a hi", "model=" + "a,b,c,d,e,f,g,h,i executor=1,2 many"} {
		if _, err := parseAttempts(bad); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
}
