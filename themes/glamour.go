package themes

import "charm.land/glamour/v2/ansi"

// paneGlamour adapts a glamour style to life inside a pane: no document
// margin and no blank lines around the document, since the pane frames it.
func paneGlamour(base ansi.StyleConfig) ansi.StyleConfig {
	g := base
	zero := uint(0)
	g.Document.Margin = &zero
	g.Document.BlockPrefix = ""
	g.Document.BlockSuffix = ""
	return g
}
