package acp

import (
	"reflect"
	"testing"
)

func TestWithACPFlag(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"gemini"}, []string{"gemini", "--acp"}},
		{[]string{"/x/bin/gemini", "-m", "gemini-2.5-pro"}, []string{"/x/bin/gemini", "-m", "gemini-2.5-pro", "--acp"}},
		{[]string{"gemini", "--experimental-acp"}, []string{"gemini", "--experimental-acp"}},
		{[]string{"gemini", "--acp"}, []string{"gemini", "--acp"}},
		{[]string{"codex-acp"}, []string{"codex-acp"}},
	} {
		if got := withACPFlag(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("withACPFlag(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
