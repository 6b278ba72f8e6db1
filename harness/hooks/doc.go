// Package hooks runs user hooks in the shape Claude Code users know: command hooks configured
// under "hooks" in settings files, for the events PreToolUse, PostToolUse, UserPromptSubmit,
// Stop, SessionStart and PreCompact. A hook gets the event as JSON on stdin and answers with an
// exit code (2 blocks, with stderr as the reason) or JSON on stdout (decision, reason,
// hookSpecificOutput with permissionDecision, updatedInput or additionalContext). Each run is
// recorded as a hook.run event; a hook still running at its timeout (default 60 s) is killed.
//
// Settings files, merged in this order: the user's $XDG_CONFIG_HOME/exo/settings.json (else
// ~/.config/exo/settings.json), the project's .exo/settings.json and .exo/settings.local.json.
package hooks
