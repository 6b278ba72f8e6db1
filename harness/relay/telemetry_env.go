package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// TelemetryEnv fingerprints the OTEL_* variables of an environment (os.Environ's form): a short
// hash of them, sorted, or "" when there are none. The daemon says in its hello which it
// started with, so a client given other ones can say they do not reach it. Values are hashed,
// never sent: OTEL_EXPORTER_OTLP_HEADERS may hold a collector's key.
func TelemetryEnv(environ []string) string {
	var otel []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, "OTEL_") {
			otel = append(otel, kv)
		}
	}
	if len(otel) == 0 {
		return ""
	}
	sort.Strings(otel)
	sum := sha256.Sum256([]byte(strings.Join(otel, "\x00")))
	return hex.EncodeToString(sum[:8])
}
