package ansi_test

import (
	"bytes"
	"strings"
	"testing"
	"text/template"

	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
)

// templateFormat is upstream's formatToken: Format executed as a text/template.
func templateFormat(format, token string) (string, error) {
	var b bytes.Buffer
	tmpl, err := template.New(format).Funcs(ansi.TemplateFuncMap).Parse(format)
	if err != nil {
		return "", err
	}
	err = tmpl.Execute(&b, map[string]interface{}{"text": token})
	return b.String(), err
}

// shippedFormats is every Format of the styles glamour ships.
func shippedFormats() []string {
	seen := map[string]bool{}
	var out []string
	for _, sc := range styles.DefaultStyles {
		for _, f := range []string{sc.Image.Format, sc.ImageText.Format, sc.Link.Format, sc.LinkText.Format,
			sc.HorizontalRule.Format, sc.Text.Format, sc.Code.Format, sc.Emph.Format, sc.Strong.Format,
			sc.Strikethrough.Format, sc.Item.Format, sc.Enumeration.Format, sc.Task.Format} {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// TestFormatTokenAsTemplate holds the patched formatToken to upstream's template for every
// format glamour ships and some more, with tokens that look like template actions themselves.
func TestFormatTokenAsTemplate(t *testing.T) {
	formats := append(shippedFormats(), "{{ .text }}", "[{{.text}}]({{.text}})", "no action", "", "{{.text}}{{.text}}")
	if len(formats) < 8 {
		t.Fatalf("only %d formats found in the shipped styles: %q", len(formats), formats)
	}
	tokens := []string{"", "alt text", "{{.text}}", "}}", "{{", "a\nb", "\x1b[31mred", "ünï 日本"}
	for _, f := range formats {
		for _, tok := range tokens {
			want, err := templateFormat(f, tok)
			if err != nil {
				t.Fatalf("template %q: %v", f, err)
			}
			got, err := ansi.FormatToken(f, tok)
			if err != nil || got != want {
				t.Errorf("formatToken(%q, %q) = %q, %v; the template writes %q", f, tok, got, err, want)
			}
		}
	}
}

// TestFormatTokenRefusesOtherActions: a format with any action but {{.text}} is an error, not
// text written wrong.
func TestFormatTokenRefusesOtherActions(t *testing.T) {
	for _, f := range []string{"{{.other}}", "{{- .text}}", "{{.text -}}", `{{Left .text 2}}`, "{{if .text}}x{{end}}", "open {{.text", "{{}}"} {
		if got, err := ansi.FormatToken(f, "tok"); err == nil || !strings.Contains(err.Error(), "glamour: error parsing template") {
			t.Errorf("formatToken(%q) = %q, %v; want a parse error", f, got, err)
		}
	}
}
