package metrics

import "syscall"

// freeBind lets a socket listen on an address the machine does not have
// yet (IP_FREEBIND, as systemd's FreeBind=): it is served once the address
// is assigned. IPv6 sockets honour the same option.
func freeBind(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_IP, syscall.IP_FREEBIND, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
