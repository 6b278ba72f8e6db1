// Package termsafe owns exo's one ANSI sanitizer: the state machine that turns raw terminal
// output, a model's answer or a tool's result into text that can never act on a terminal
// (no titles, clipboard writes, cursor moves, mode switches or hyperlinks). The sandbox runs
// it on a command's output as it streams; the views run it on whole strings before they draw
// them. It is a leaf: it imports only the standard library, so both sandbox and views, which
// may not import each other or the harness, can use it. It sits under themes, the bottom of
// the layering (DESIGN's list: imports only point down it), because what it decides is how
// text looks on a terminal: which escape sequences may reach it.
package termsafe
