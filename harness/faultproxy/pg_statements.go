package faultproxy

import (
	"strings"
	"sync"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

const pgStatementsToxicType = "outboxchaos_postgres_statements"

// pgStatements is what a PostgreSQL link knows of the prepared statements
// its clients made: the SQL of each named statement, as the link's
// statement toxic read it in a Parse, from the first connection on. A
// prepared statement lives as long as its session, and a client with a
// statement cache (pgx's default) prepares each statement once per
// connection, so a fault added later would otherwise never learn what an
// Execute runs. Names are shared by the link's connections: a client that
// names statements after their SQL (pgx: a hash of it; node-postgres:
// the name the code gives) means the same SQL by a name on every
// connection. A name seen with two different texts (a client that numbers
// its statements per connection) is ambiguous and never matches.
type pgStatements struct {
	mu    sync.Mutex
	texts map[string]string
	mixed map[string]bool
}

func newPGStatements() *pgStatements {
	return &pgStatements{texts: map[string]string{}, mixed: map[string]bool{}}
}

// learn records that name was prepared with sql.
func (s *pgStatements) learn(name, sql string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, seen := s.texts[name]
	switch {
	case seen && old != sql:
		s.mixed[name] = true
	case !seen && len(s.texts) < pgMaxTracked:
		s.texts[name] = sql
	}
}

// lookup returns the SQL name was prepared with, when it is known and
// unambiguous.
func (s *pgStatements) lookup(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sql, ok := s.texts[name]
	return sql, ok && !s.mixed[name]
}

// pgStatementSets holds every PostgreSQL link's statements.
var pgStatementSets = &registry[pgStatements]{prefix: "pg-statements-"}

// isPostgresLink says whether a link's name says it leads to PostgreSQL:
// its dependency, the name up to the first '/', is StorePostgres
// ("postgres/d1"), as runs name their store's links.
func isPostgresLink(name string) bool {
	dep, _, _ := strings.Cut(name, "/")
	return dep == StorePostgres
}

// pgStatementsKind is the statement toxic every PostgreSQL link carries
// upstream from its creation.
type pgStatementsKind struct{}

func (pgStatementsKind) registry() *registry[pgStatements] { return pgStatementSets }
func (pgStatementsKind) filter(s *pgStatements) filter {
	return &pgLearn{known: s, sc: newPGScanner(false)}
}

// pgLearn passes every byte at once and records each named Parse whose
// SQL it read whole.
type pgLearn struct {
	known *pgStatements
	sc    pgScanner
	hold
	quiet
}

func (l *pgLearn) process(data []byte) []byte { return scanChunk(&l.hold, &l.sc, l, data) }

func (l *pgLearn) mode() scanMode {
	if l.sc.opaque {
		return scanPass
	}
	return scanOn
}

func (l *pgLearn) on(ev pgEvent) {
	if ev != pgEnd || l.sc.typ != pgParse || !l.sc.complete() {
		return
	}
	if s, _, ok := cstrings(l.sc.payload, 2); ok && s[0] != "" {
		l.known.learn(s[0], s[1])
	}
}

func (l *pgLearn) flush() ([]byte, bool) { return l.flushHeld() }

// pgToxicKind is toxicKind for a PostgreSQL upstream filter that also
// reads its link's statements.
type pgToxicKind[S any] interface {
	registry() *registry[S]
	pgFilter(state *S, known *pgStatements) filter
}

// pgFilterToxic is filterToxic for a pgToxicKind: Statements is the key
// of the link's statements (empty on a link that does not follow them).
type pgFilterToxic[S any, K pgToxicKind[S]] struct {
	Fault      string `json:"fault"`
	Statements string `json:"statements"`
}

func (t *pgFilterToxic[S, K]) Pipe(stub *toxics.ToxicStub)    { runFilter(stub) }
func (t *pgFilterToxic[S, K]) Cleanup(stub *toxics.ToxicStub) { cleanupFilter(stub) }
func (t *pgFilterToxic[S, K]) NewState() interface{} {
	var k K
	if s := k.registry().lookup(t.Fault); s != nil {
		return k.pgFilter(s, pgStatementSets.lookup(t.Statements))
	}
	return passFilter{}
}

// readsStatements are the toxic types that read their link's statements.
var readsStatements = map[string]bool{pgRefuseToxicType: true, pgCommitHoldToxicType: true}

// withStatements hands a PostgreSQL link's statements (their registry
// key) to those of a fault's toxics that read them.
func withStatements(specs []toxicSpec, key string) {
	for _, s := range specs {
		if attrs, ok := s.Attributes.(map[string]string); ok && readsStatements[s.Type] {
			attrs["statements"] = key
		}
	}
}

// followStatements registers a PostgreSQL link's statements and adds the
// toxic that learns them, before the link accepts a connection; it
// returns the registry key.
func followStatements(tp *toxiproxy.Proxy) (string, error) {
	key := pgStatementSets.register(newPGStatements())
	spec := toxicSpec{Name: "postgres-statements", Type: pgStatementsToxicType, Stream: Upstream.stream(), Attributes: map[string]string{"fault": key}}
	if err := addToxic(tp, spec); err != nil {
		pgStatementSets.unregister(key)
		return "", err
	}
	return key, nil
}
