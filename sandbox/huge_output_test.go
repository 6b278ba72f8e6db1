//go:build !race

package sandbox

import "testing"

// TestHugeOutput2GiB streams `head -c 2G /dev/zero | base64` (2.9 GB of text) through the
// PTY into an artifact and checks the heap stays bounded. The kernel PTY moves about
// 30 MB/s on a small VM, so this takes minutes; it is excluded under -race and -short.
// Run it with: go test -run TestHugeOutput2GiB -timeout 20m ./sandbox/
func TestHugeOutput2GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("2 GiB through a PTY takes minutes; skipped with -short")
	}
	hugeOutput(t, "2G", base64Len(2<<30))
}
