package sessionbox

import (
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// The manager reads a command's credentials and not a byte more: the
// request that follows, with its descriptors, is the keeper's whole.
func TestCredentialsFrame(t *testing.T) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	defer unix.Close(pair[1])
	secrets := []string{"GH_TOKEN=real-value"}
	if err := writeMsg(pair[0], secrets); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(os.DevNull)
	defer f.Close()
	req := &request{Path: "/bin/sh", Argv: []string{"sh"}, Env: []string{"GH_TOKEN=cordon_x"}, FDs: []int{5}}
	if err := sendRequest(pair[0], req, []int{int(f.Fd())}); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := readMsg(pair[1], &got); err != nil || !slices.Equal(got, secrets) {
		t.Fatalf("readMsg = %q, %v", got, err)
	}
	r, fds, err := recvRequest(pair[1])
	if err != nil || len(fds) != 1 || !slices.Equal(r.Env, req.Env) {
		t.Fatalf("recvRequest = %+v, %v, %v", r, fds, err)
	}
	closeAll(fds)
}
