//go:build !amd64

package sandbox

// setidTriesArch adds nothing where the older mode-setting syscalls do not exist.
func setidTriesArch() []setidTry { return nil }
