package etcdtest

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Ranges sums the range requests the members served (etcd's own counter,
// grpc_server_handled_total of method Range on each member's /metrics), what reads cost the
// cluster. Members that do not answer count nothing.
func (c *Cluster) Ranges() (int64, error) {
	return Ranges(c.Endpoints)
}

// Ranges sums grpc_server_handled_total{grpc_method="Range"} over the /metrics endpoints of
// the members at endpoints (host:port or URLs): for embedded clusters and etcd binaries alike.
func Ranges(endpoints []string) (int64, error) {
	cl := http.Client{Timeout: 5 * time.Second}
	var total int64
	for _, ep := range endpoints {
		u := ep
		if !strings.Contains(u, "://") {
			u = "http://" + u
		}
		resp, err := cl.Get(strings.TrimSuffix(u, "/") + "/metrics")
		if err != nil {
			return total, fmt.Errorf("metrics of %s: %w", ep, err)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "grpc_server_handled_total{") || !strings.Contains(line, `grpc_method="Range"`) {
				continue
			}
			f := strings.Fields(line)
			n, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err == nil {
				total += int64(n)
			}
		}
		resp.Body.Close()
	}
	return total, nil
}
