package views

import "strings"

// SlashCommand describes one slash command of the input.
type SlashCommand struct {
	Name string // Name is the command without the slash.
	Args string // Args describes the arguments, for the hint.
	Help string // Help is a one-line description.
}

// SlashCommands are the commands the input completes.
var SlashCommands = []SlashCommand{
	{Name: "new", Help: "start a new session"},
	{Name: "fork", Args: "[seq]", Help: "fork a sibling session"},
	{Name: "rewind", Args: "<seq>", Help: "rewind this session"},
	{Name: "resume", Help: "pick a session to open"},
	{Name: "model", Args: "<name>", Help: "switch model"},
	{Name: "executor", Args: "<name>", Help: "switch executor"},
	{Name: "compact", Help: "compact the context now"},
	{Name: "scope", Args: "<globs>", Help: "set the session scope"},
	{Name: "budget", Args: "[tokens|cost n]", Help: "show or change budgets"},
	{Name: "attempts", Args: "[@seq] model=a,b prompt", Help: "several attempts side by side, scored"},
	{Name: "replay", Args: "[@seq] executor=x model=m", Help: "re-run this session's prompts, scored"},
	{Name: "help", Help: "show every key"},
	{Name: "quit", Help: "leave exo"},
}

// completions returns the commands whose name starts with the typed prefix
// of a value like "/re"; none once a space was typed.
func completions(value string, custom []SlashCommand) []SlashCommand {
	if !strings.HasPrefix(value, "/") || strings.ContainsAny(value, " \n") {
		return nil
	}
	prefix := strings.ToLower(value[1:])
	var out []SlashCommand
	for _, c := range append(SlashCommands[:len(SlashCommands):len(SlashCommands)], custom...) {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// parseSlash splits "/name args" into its name and argument text.
func parseSlash(text string) (string, string) {
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	return strings.ToLower(name), strings.TrimSpace(args)
}
