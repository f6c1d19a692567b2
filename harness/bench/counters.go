package bench

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// serverCounts are the server-wide work counters at one moment.
type serverCounts struct {
	Questions     int64 // MySQL: statements clients sent (COM_QUERY and COM_STMT_EXECUTE)
	RedisCommands int64 // Redis: total_commands_processed
}

// counters reads serverCounts and knows how much its own reading costs, so
// a window's delta can be cleaned of the harness's statements.
type counters struct {
	db  *sql.DB
	rdb *redis.Client
	// readCost is the delta two back-to-back reads show: what one read
	// adds to each counter.
	readCost serverCounts
}

// newCounters calibrates the cost of a read on quiet servers.
func newCounters(ctx context.Context, db *sql.DB, rdb *redis.Client) (*counters, error) {
	c := &counters{db: db, rdb: rdb}
	a, err := c.read(ctx)
	if err != nil {
		return nil, err
	}
	b, err := c.read(ctx)
	if err != nil {
		return nil, err
	}
	c.readCost = serverCounts{Questions: b.Questions - a.Questions, RedisCommands: b.RedisCommands - a.RedisCommands}
	return c, nil
}

func (c *counters) read(ctx context.Context) (serverCounts, error) {
	var name string
	var q int64
	if err := c.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &q); err != nil {
		return serverCounts{}, fmt.Errorf("read mysql Questions: %w", err)
	}
	info, err := c.rdb.Info(ctx, "stats").Result()
	if err != nil {
		return serverCounts{}, fmt.Errorf("read redis INFO stats: %w", err)
	}
	cmds, err := infoInt(info, "total_commands_processed")
	if err != nil {
		return serverCounts{}, err
	}
	return serverCounts{Questions: q, RedisCommands: cmds}, nil
}

// work returns what the servers did between before and after, less the
// read of after itself and the harness's own statements in between.
func (c *counters) work(before, after serverCounts, ownStatements int64) serverCounts {
	return serverCounts{
		Questions:     max(0, after.Questions-before.Questions-c.readCost.Questions-ownStatements),
		RedisCommands: max(0, after.RedisCommands-before.RedisCommands-c.readCost.RedisCommands),
	}
}

func infoInt(info, field string) (int64, error) {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("redis INFO %s=%q: %w", field, v, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("redis INFO has no %s", field)
}

// statementCount counts the statements the harness sends to MySQL while a
// window is open, so they are not charged to the dispatcher.
type statementCount struct{ n atomic.Int64 }

func (s *statementCount) add()        { s.n.Add(1) }
func (s *statementCount) load() int64 { return s.n.Load() }
