package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness/executor"
)

// Inline limits of a tool result: past InlineLimit bytes the whole text becomes an artifact
// and the model sees its head and tail.
const (
	InlineLimit = 32 << 10
	headBytes   = 16 << 10
	tailBytes   = 8 << 10
)

// result turns a tool's answer into text; images, audio and binary resources are stored as
// artifacts and named in the text.
func (m *Manager) result(server, tool string, res *sdk.CallToolResult) executor.ExtResult {
	var b strings.Builder
	for _, c := range res.Content {
		m.content(&b, server, tool, c)
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if js, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(js)
		}
	}
	text := b.String()
	if text == "" && !res.IsError {
		text = "(no output)"
	}
	out := executor.ExtResult{Text: text, IsError: res.IsError, Changed: true}
	if len(text) > InlineLimit {
		m.spill(&out, server, tool)
	}
	return out
}

// spill stores a long text as an artifact and keeps its head and tail.
func (m *Manager) spill(out *executor.ExtResult, server, tool string) {
	full := out.Text
	id, err := m.h.SaveArtifact(fmt.Sprintf("output of mcp %s %s", server, tool), []byte(full))
	out.TotalBytes, out.Truncated = int64(len(full)), true
	head, tail := strings.ToValidUTF8(full[:headBytes], ""), strings.ToValidUTF8(full[len(full)-tailBytes:], "")
	if err != nil {
		out.Text = fmt.Sprintf("%s\n[… %d bytes cut; the full output could not be stored: %v …]\n%s", head, len(full)-headBytes-tailBytes, err, tail)
		return
	}
	out.Artifact = id
	out.Text = fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", head, len(full)-headBytes-tailBytes, tail)
}

// content renders one content item.
func (m *Manager) content(b *strings.Builder, server, tool string, c sdk.Content) {
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	switch v := c.(type) {
	case *sdk.TextContent:
		b.WriteString(v.Text)
	case *sdk.ImageContent:
		m.blob(b, server, tool, "image", v.MIMEType, v.Data)
	case *sdk.AudioContent:
		m.blob(b, server, tool, "audio", v.MIMEType, v.Data)
	case *sdk.ResourceLink:
		fmt.Fprintf(b, "[resource link: %s %s]", v.URI, v.Name)
	case *sdk.EmbeddedResource:
		if v.Resource == nil {
			return
		}
		if v.Resource.Text != "" {
			fmt.Fprintf(b, "[resource %s]\n%s", v.Resource.URI, v.Resource.Text)
		} else {
			m.blob(b, server, tool, "resource "+v.Resource.URI, v.Resource.MIMEType, v.Resource.Blob)
		}
	default:
		if js, err := json.Marshal(c); err == nil {
			b.Write(js)
		}
	}
}

// blob stores binary content as an artifact and names it in the text.
func (m *Manager) blob(b *strings.Builder, server, tool, kind, mime string, data []byte) {
	id, err := m.h.SaveArtifact(fmt.Sprintf("%s from mcp %s %s (%s)", kind, server, tool, mime), data)
	if err != nil {
		fmt.Fprintf(b, "[%s %s, %d bytes: not stored: %v]", kind, mime, len(data), err)
		return
	}
	fmt.Fprintf(b, "[%s %s, %d bytes: artifact %s]", kind, mime, len(data), id)
}
