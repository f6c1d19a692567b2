package localenv

import (
	"fmt"
	"net"
	"sync"
)

// reservedPorts are the well-known ports of shared servers; a private server
// never uses them.
var reservedPorts = map[int]string{3306: "MySQL/MariaDB", 5432: "PostgreSQL", 6379: "Redis"}

// handedOut remembers ports this process already chose, so two servers
// started at the same time never get the same free port.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// checkPort validates a caller-chosen port (0 means choose one).
func checkPort(port int) error {
	if port < 0 || port > 65535 {
		return fmt.Errorf("port %d out of range: use 0 for a free port or 1024-65535", port)
	}
	if what, ok := reservedPorts[port]; ok {
		return fmt.Errorf("port %d is the well-known %s port, reserved for shared servers: use 0 for a free port", port, what)
	}
	return nil
}

// freePort asks the kernel for a free loopback port, skipping ports already
// handed out by this process and the reserved ones.
func freePort() (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("find a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if err := l.Close(); err != nil {
			return 0, fmt.Errorf("find a free port: close listener: %w", err)
		}
		if handedOut.ports[port] || reservedPorts[port] != "" {
			continue
		}
		handedOut.ports[port] = true
		return port, nil
	}
	return 0, fmt.Errorf("find a free port: no new port after 50 tries")
}
