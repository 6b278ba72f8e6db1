// Package trust is exo's record of which project-provided code the user agreed to run. A
// repository's .mcp.json starts MCP servers and its .exo/settings.json and
// .exo/settings.local.json run hook commands: code that runs on the host as the user, which a
// cloned repository can ship and a sandboxed agent can write with its shell. exo starts none of
// it until the user trusts the files, the way Claude Code asks before it trusts a project folder.
//
// Trust is kept in EXO_HOME/trust.json, keyed by the project's real path (symbolic links
// resolved) and each file's SHA-256: a trusted file that changes afterwards is untrusted again,
// and the same file in another folder is not trusted by it. The user's own configuration
// (~/.config/exo) is the user's and needs no trust.
package trust
