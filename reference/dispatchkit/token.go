package dispatchkit

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// NewToken returns a fresh random fencing token: 128 bits as 32 hex
// characters. A claim writes it into lock_token and every later write of the
// claim is guarded by it; the mutant base's dispatch lock holds one too.
func NewToken() (string, error) {
	var buf [16]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return "", fmt.Errorf("new token: %w", err)
	}
	return hex.EncodeToString(buf[:]), nil
}
