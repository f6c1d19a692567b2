package reference

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// unavailableReplies are Redis error replies that speak for the whole
// server, not for one event's keys: it is loading its data, has no
// master, is busy with a script, the cluster is down, it is a read-only
// replica (a failover), or it is out of memory (maxmemory, noeviction). They count as no
// answer: retrying the event cannot help, waiting for the server can.
var unavailableReplies = []string{"LOADING", "MASTERDOWN", "BUSY", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "OOM"}

// unavailableMySQL are MySQL error codes that speak for the server, not for
// one statement: too many connections, shutdown in progress, connection
// killed (MariaDB), disconnected for inactivity (MySQL 8), running with
// --read-only (1290, a failover) or in read-only mode (MariaDB 1836).
var unavailableMySQL = map[uint16]bool{1040: true, 1053: true, 1927: true, 4031: true, 1290: true, 1836: true}

// answeredNothing tells "the dependency answered nothing" (connection
// refused or reset, i/o timeout, a deadline that ran out on the command, a
// lost reply, EOF, a closed pool, or a server-wide unavailable reply) from
// "it answered with an error about this request" (a Redis error reply such
// as WRONGTYPE from one queue's keys, a MySQL error reply such as a
// deadlock). Only the first opens a breaker; only the second spends an
// attempt (doc.go, "Dependency health").
func answeredNothing(err error) bool {
	if err == nil {
		return false
	}
	if reply, ok := errorReply(err); ok {
		return unavailableReply(reply)
	}
	return transportFailure(err)
}

// errorReply finds a server's error reply in err's chain.
func errorReply(err error) (error, bool) {
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my, true
	}
	var rd redis.Error
	if errors.As(err, &rd) && !errors.Is(err, redis.Nil) {
		return rd, true
	}
	return nil, false
}

func unavailableReply(reply error) bool {
	var my *mysql.MySQLError
	if errors.As(reply, &my) {
		return unavailableMySQL[my.Number]
	}
	msg := reply.Error()
	for _, p := range unavailableReplies {
		if strings.HasPrefix(msg, p+" ") || msg == p {
			return true
		}
	}
	return false
}

// transportFailure is a failure below the protocol: nothing came back.
func transportFailure(err error) bool {
	var ne net.Error
	switch {
	case errors.As(err, &ne):
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	case errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, driver.ErrBadConn):
		return true
	case errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout):
		return true
	}
	return false
}

// lockConflicts are InnoDB's answers to a statement that met other
// transactions' locks: a deadlock (1213, SQLSTATE 40001; InnoDB rolled the
// transaction back) and a lock wait timeout (1205). Both say "try
// restarting transaction": neither is about the events.
var lockConflicts = map[uint16]bool{1213: true, 1205: true}

// lockConflict tells whether err carries a lock conflict reply.
func lockConflict(err error) bool {
	var my *mysql.MySQLError
	return errors.As(err, &my) && lockConflicts[my.Number]
}
