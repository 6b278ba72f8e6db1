package claude

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"exo/harness/provider"
)

// TestUserLineCarriesImages: the stream-json prompt line holds the text, then each image as a
// base64 image block of its bytes.
func TestUserLineCarriesImages(t *testing.T) {
	pic := []byte("\x89PNG\r\n\x1a\nrest")
	b, err := json.Marshal(userLine("look", provider.Image{MediaType: "image/png", Data: pic}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"message":{"content":[{"text":"look","type":"text"},{"source":{"data":"` + base64.StdEncoding.EncodeToString(pic) +
		`","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"},"parent_tool_use_id":null,"session_id":"","type":"user"}`
	if string(b) != want {
		t.Fatalf("line:\n%s\nwant:\n%s", b, want)
	}
}
