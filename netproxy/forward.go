package netproxy

import (
	"net"
)

// Forward accepts connections on ln (inside the sandbox: 127.0.0.1) and
// pipes each to a connection dial makes (the proxy's Unix socket), until
// ln is closed.
func Forward(ln net.Listener, dial func() (net.Conn, error)) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return err
		}
		go func() {
			defer c.Close()
			up, err := dial()
			if err != nil {
				return
			}
			defer up.Close()
			pipe(c, nil, up)
		}()
	}
}
