package platform

import (
	"net"
	"slices"
	"testing"
)

// TestHostLoopbackPorts: the ports listening on the loopback, read by
// socket diagnostics, are those /proc lists, the one just opened among
// them.
func TestHostLoopbackPorts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	if l6, err := net.Listen("tcp", "[::1]:0"); err == nil {
		defer l6.Close()
	}
	got, proc := hostLoopbackPorts(), procLoopbackPorts()
	slices.Sort(proc)
	if !slices.Equal(got, proc) || !slices.Contains(got, l.Addr().(*net.TCPAddr).Port) {
		t.Errorf("socket diagnostics %v, /proc %v", got, proc)
	}
}

// BenchmarkHostLoopbackPorts is what a sandbox with the network allowlist
// pays on every start to forward the host's loopback ports (/proc/net/tcp
// and tcp6 cost about 2 ms here).
func BenchmarkHostLoopbackPorts(b *testing.B) {
	for b.Loop() {
		hostLoopbackPorts()
	}
}
