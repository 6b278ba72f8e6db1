package mcp

import "os/exec"

var execLookPath = exec.LookPath
