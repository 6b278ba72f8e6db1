package provider

import "fmt"

// textOnly lists the catalog's models that take no image input (their providers' model pages
// say so); every other catalog model takes PNG, JPEG, GIF and WebP images.
var textOnly = map[string]bool{
	"o3-mini": true, "codex-mini": true, "grok-code-fast-1": true, "grok-code-fast": true,
	"grok-3-mini": true, "deepseek-chat": true, "deepseek-reasoner": true, "glm-4.6": true,
	"kimi-k2": true, "kimi-k2-0905": true,
}

// ImageInput says whether a model of the provider kind takes images in a user message, and
// why not when it does not. The scripted model never does (it plays text), a catalog model
// as its provider documents; a model the catalog does not know is given the image and its
// server answers for itself (a local vision model takes it, a text one refuses the request).
func ImageInput(kind, modelID string) (bool, string) {
	if kind == KindScripted {
		return false, "the scripted model plays recorded text and takes no images"
	}
	info, ok := Lookup(modelID)
	if ok && textOnly[info.ID] {
		return false, fmt.Sprintf("%s takes no image input", info.ID)
	}
	return true, ""
}
