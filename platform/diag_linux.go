package platform

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// listeningTCP lists the TCP sockets listening in this thread's network
// namespace, of address family family (AF_INET, AF_INET6), by the
// kernel's socket diagnostics over netlink (what ss(8) uses): only the
// listening sockets are looked at. Reading /proc/net/tcp walks every
// socket's hash table instead, about a millisecond each file on every
// command.
func listeningTCP(family byte) ([]netip.AddrPort, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	// nlmsghdr, then inet_diag_req_v2: family, protocol, ext, pad,
	// states, and a socket id of 48 bytes left zero.
	req := make([]byte, unix.SizeofNlMsghdr+56)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:], 1)
	body := req[unix.SizeofNlMsghdr:]
	body[0], body[1] = family, unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(body[4:], 1<<10) // TCP_LISTEN
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	var out []netip.AddrPort
	buf := make([]byte, 32<<10)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				return nil, errors.New("socket diagnostics refused the request")
			}
			// inet_diag_msg: family, state, timer, retrans, then the
			// socket id: source port (big-endian), destination port,
			// source address (16 bytes).
			d := m.Data
			if len(d) < 24 {
				continue
			}
			port := binary.BigEndian.Uint16(d[4:6])
			var addr netip.Addr
			if d[0] == unix.AF_INET {
				addr = netip.AddrFrom4([4]byte(d[8:12]))
			} else {
				addr = netip.AddrFrom16([16]byte(d[8:24]))
			}
			out = append(out, netip.AddrPortFrom(addr, port))
		}
	}
}
