package relay

import "testing"

// TestTelemetryEnv: only OTEL_* variables count, in any order; none gives "", and a changed
// value another fingerprint, which does not hold the value.
func TestTelemetryEnv(t *testing.T) {
	if got := TelemetryEnv([]string{"HOME=/h", "PATH=/bin"}); got != "" {
		t.Fatalf("no OTEL_* variables: %q", got)
	}
	a := TelemetryEnv([]string{"OTEL_SERVICE_NAME=x", "HOME=/h", "OTEL_EXPORTER_OTLP_HEADERS=key=sekrit"})
	b := TelemetryEnv([]string{"OTEL_EXPORTER_OTLP_HEADERS=key=sekrit", "OTEL_SERVICE_NAME=x", "PATH=/bin"})
	c := TelemetryEnv([]string{"OTEL_SERVICE_NAME=y", "OTEL_EXPORTER_OTLP_HEADERS=key=sekrit"})
	if a == "" || a != b || a == c {
		t.Fatalf("fingerprints %q %q %q", a, b, c)
	}
	if len(a) != 16 {
		t.Fatalf("fingerprint %q", a)
	}
}
