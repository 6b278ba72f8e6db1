package acp

import (
	"strings"
	"testing"
)

// TestTakesImagesFollowsPromptCapabilities: an agent takes images only when its initialize
// answer offered promptCapabilities.image, and says why not otherwise.
func TestTakesImagesFollowsPromptCapabilities(t *testing.T) {
	if ok, why := (&proc{}).TakesImages(); ok || !strings.Contains(why, "promptCapabilities.image") {
		t.Fatalf("without the capability: %v %q", ok, why)
	}
	if ok, _ := (&proc{images: true}).TakesImages(); !ok {
		t.Fatal("with the capability, images are refused")
	}
}
