package netproxy

import (
	"errors"
	"fmt"
	"io"
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

// DialSOCKS connects to host:port through the SOCKS5 proxy at addr,
// which resolves the name. A refusal's error names cordon's rules.
func DialSOCKS(addr, host string, port int) (net.Conn, error) {
	if addr == "" {
		return nil, errors.New("no proxy (ALL_PROXY is not cordon's socks5h://127.0.0.1:PORT): run this inside cordon's sandbox with the network allowlist")
	}
	if len(host) > 255 {
		return nil, errors.New("host name too long")
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	req := append([]byte{5, 1, 0, 5, 1, 0, 3, byte(len(host))}, host...)
	req = append(req, byte(port>>8), byte(port))
	if _, err := c.Write(req); err != nil {
		c.Close()
		return nil, err
	}
	var rep [12]byte // the method answer, then the reply with an IPv4 address
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		c.Close()
		return nil, fmt.Errorf("the proxy closed the connection to %s:%d", host, port)
	}
	switch {
	case rep[1] != 0:
		c.Close()
		return nil, errors.New("the proxy wants authentication")
	case rep[3] == socksNotAllowed:
		c.Close()
		return nil, fmt.Errorf("cordon refused the connection to %s:%d: it is not in the network allow list (see `cordon log`; a person can allow it with `cordon approve --host %s`)", host, port, host)
	case rep[3] != socksOK:
		c.Close()
		return nil, fmt.Errorf("cannot connect to %s:%d through cordon's proxy (SOCKS reply %d)", host, port, rep[3])
	}
	return c, nil
}

// Join pipes r to c and c to w, until c's end.
func Join(c net.Conn, r io.Reader, w io.Writer) {
	go func() {
		io.Copy(c, r)
		closeWrite(c)
	}()
	io.Copy(w, c)
}
