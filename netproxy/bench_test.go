package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDownload fetches a 100 MB file from a local server directly
// and through the whole allowlist path (the forwarder on loopback, the
// proxy's Unix socket, the proxy, TCP to the server), with HTTP CONNECT.
//
//	go test -run - -bench Download -benchtime 20x ./netproxy
func BenchmarkDownload(b *testing.B) {
	const size = 100 << 20
	file := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(file, make([]byte, size), 0o600); err != nil {
		b.Fatal(err)
	}
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	go func() {
		for {
			c, err := srv.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				f, err := os.Open(file)
				if err != nil {
					return
				}
				defer f.Close()
				io.Copy(c, f) // sendfile
			}()
		}
	}()
	rules, _ := Compile([]string{"127.0.0.0/8"}, nil)
	sock := filepath.Join(b.TempDir(), "p.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	defer ul.Close()
	go (&Server{Rules: rules}).Serve(ul)
	fwd, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer fwd.Close()
	go Forward(fwd, func() (net.Conn, error) { return net.Dial("unix", sock) })

	fetch := func(b *testing.B, proxied bool) {
		addr := srv.Addr().String()
		dial := addr
		if proxied {
			dial = fwd.Addr().String()
		}
		c, err := net.Dial("tcp", dial)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		var r io.Reader = c
		if proxied {
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\n", addr)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("CONNECT: %v %v", resp, err)
			}
			r = br
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil || n != size {
			b.Fatalf("got %d bytes: %v", n, err)
		}
	}
	for _, c := range []struct {
		name    string
		proxied bool
	}{{"direct", false}, {"proxy", true}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				fetch(b, c.proxied)
			}
		})
	}
}
