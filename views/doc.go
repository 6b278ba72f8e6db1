// Package views holds exo's pane components: conversation, input, timeline,
// siblings, sandbox, status bar, help, modals, event detail and split view.
//
// Each pane is a component in the soft-serve style: Update, View, SetSize,
// Focus/Blur and ShortHelp/FullHelp, with its keys declared once as data.
// A pane never measures the terminal and does no I/O; it receives data
// through setters and messages in its own plain view-model types (the app
// maps harness projections to them) and reports user intent by returning
// commands that produce typed messages. Every line a pane renders fits its
// width as measured by ansi.StringWidth.
package views
