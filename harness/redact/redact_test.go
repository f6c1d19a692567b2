package redact

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStringRemovesPasswordsByShape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"root:s3cret@tcp(127.0.0.1:3306)/outbox?parseTime=true", "root:***@tcp(127.0.0.1:3306)/outbox?parseTime=true"},
		{"OUTBOX_MYSQL_DSN=app:p@ss:w0rd@tcp(db:3306)/x", "OUTBOX_MYSQL_DSN=app:***@tcp(db:3306)/x"},
		{"user:pw@unix(/tmp/mysql.sock)/db", "user:***@unix(/tmp/mysql.sock)/db"},
		{"user:pw@/db", "user:***@/db"},
		{"root:@tcp(127.0.0.1:3306)/outbox", "root:@tcp(127.0.0.1:3306)/outbox"}, // no password: nothing to hide
		{"redis://:s3cret@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"},
		{"redis://default:s3cret@127.0.0.1:6379/0", "redis://default:***@127.0.0.1:6379/0"},
		{"mysql://root:s3cret@127.0.0.1:41001/outbox", "mysql://root:***@127.0.0.1:41001/outbox"},
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"dial redis://u:s3cret@h:1/0: connection refused", "dial redis://u:***@h:1/0: connection refused"},
		{"host=db password=s3cret sslmode=disable", "host=db password=*** sslmode=disable"},
		{"?user=root&password=s3cret&tls=true", "?user=root&password=***&tls=true"},
		{"MYSQL_PWD=s3cret REDIS_PASSWORD=s3cret", "MYSQL_PWD=*** REDIS_PASSWORD=***"},
		{"PWD=/work/x\nOLDPWD=/tmp MYSQL_PWD=s3cret pwd=s3cret", "PWD=/work/x\nOLDPWD=/tmp MYSQL_PWD=*** pwd=***"}, // env's working directories stay
		{`{"password":"s3cret"}`, `{"password":"***"}`},
		{"redis-server --requirepass s3cret --port 1", "redis-server --requirepass *** --port 1"},
		{"d1 claimed event 7 (token d1-7-1)", "d1 claimed event 7 (token d1-7-1)"},
		{"10:00:01.350 lease until 10:00:03.322", "10:00:01.350 lease until 10:00:03.322"},
		{"", ""},
	}
	for _, c := range cases {
		got := String(c.in)
		require.Equal(t, c.want, got, "String(%q)", c.in)
		require.NotContains(t, got, "s3cret")
		require.Equal(t, got, String(got), "String is idempotent on %q", c.in)
	}
}

// A registered password goes wherever it appears, also where it has no
// shape String would know; its URL-decoded form goes too.
func TestRegisteredPasswordsGoWhateverSurroundsThem(t *testing.T) {
	Register("redis://app:k%40ngaroo-7@cache:6379/0", "svc:Wombat99@tcp(db:3306)/", "redis://cache:6379/0")
	RegisterPassword("ab") // too short: the shape rules still apply, nothing else
	for _, in := range []string{
		"MY_PASS=Wombat99", "config: pass Wombat99 user svc", "secret k@ngaroo-7 decoded", "k%40ngaroo-7",
		`{"auth":"Wombat99"}`, "prefixWombat99suffix",
	} {
		got := String(in)
		require.NotContains(t, got, "Wombat99", in)
		require.NotContains(t, got, "ngaroo", in)
		require.Contains(t, got, Mask, in)
		require.Equal(t, got, String(got), in)
	}
	require.Equal(t, "grab a cab", String("grab a cab"))
}

func TestPasswordsFindsEachShape(t *testing.T) {
	require.Equal(t, []string{"pw1"}, Passwords("redis://u:pw1@h:1/0"))
	require.Equal(t, []string{"pw2"}, Passwords("redis://:pw2@h:1/0"))
	require.Equal(t, []string{"pw3"}, Passwords("root:pw3@tcp(h:3306)/"))
	require.Equal(t, []string{"pw4"}, Passwords("password=pw4"))
	require.Empty(t, Passwords("redis://h:1/0"))
	require.Empty(t, Passwords("root:@tcp(h:3306)/"))
}

// A password registered from a DSN also goes in the forms a URL writes it:
// the harness hands a dispatcher the DSN's password inside OUTBOX_MYSQL_URL,
// escaped, and a dispatcher may print it cut from there.
func TestRegisteredPasswordsGoInTheirEscapedForms(t *testing.T) {
	Register("stage:Emu:Q7+x/y@tcp(db:3306)/")
	RegisterPassword("Koala w&z")
	for _, in := range []string{
		"Emu:Q7+x/y", "Emu%3AQ7+x%2Fy", "Emu:Q7+x%2Fy", "Emu%3AQ7%2Bx%2Fy",
		"Koala w&z", "Koala%20w&z", "Koala+w%26z",
	} {
		got := String("auth | " + in + " |")
		require.Equal(t, "auth | "+Mask+" |", got, in)
	}
}

func TestSliceAndFieldsRedactCopiesOfRecords(t *testing.T) {
	type rec struct{ a, b, kept string }
	in := []rec{{"root:pw@/db", "password=pw", "pw"}}
	out := Slice(in, func(r rec) rec {
		Fields(&r.a, &r.b)
		return r
	})
	require.Equal(t, []rec{{"root:***@/db", "password=***", "pw"}}, out, "only the named fields, and only their passwords")
	require.Equal(t, "root:pw@/db", in[0].a, "the input is not modified")
	require.Nil(t, Slice[rec](nil, func(r rec) rec { return r }))
	require.Equal(t, []string{"u:***@/x"}, Strings([]string{"u:p@/x"}))
}

// PostgreSQL's connection strings: URLs (with the password in the userinfo
// or a query parameter) and libpq's key=value DSNs, whose quoted values may
// hold spaces and escaped quotes.
func TestStringRemovesPostgresPasswords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"postgres://app:s3cret@127.0.0.1:5432/outbox?sslmode=disable", "postgres://app:***@127.0.0.1:5432/outbox?sslmode=disable"},
		{"postgresql://app:s3cret@db/outbox", "postgresql://app:***@db/outbox"},
		{"postgres://app:p@ss:s3cret@db:5432/x", "postgres://app:***@db:5432/x"},
		{"postgres://app@db:5432/x?sslmode=disable&password=s3cret", "postgres://app@db:5432/x?sslmode=disable&password=***"},
		{"postgres://postgres@127.0.0.1:41234/postgres?sslmode=disable", "postgres://postgres@127.0.0.1:41234/postgres?sslmode=disable"},
		{"host=db port=5432 user=app password=s3cret dbname=x", "host=db port=5432 user=app password=*** dbname=x"},
		{"host=db user=app password='s3cret with spaces' dbname=x", "host=db user=app password='***' dbname=x"},
		{`host=db password = 'it\'s s3cret\\' user=app`, `host=db password = '***' user=app`},
		{"host=db password='' user=app", "host=db password='' user=app"}, // no password: nothing to hide
		{`PGPASSWORD="s3cret and more" psql -h db`, `PGPASSWORD="***" psql -h db`},
		{`{"password": "s3cret too"}`, `{"password": "***"}`},
		{`declare -x PWD="/work/x y"`, `declare -x PWD="/work/x y"`},
	}
	for _, c := range cases {
		got := String(c.in)
		require.Equal(t, c.want, got, "String(%q)", c.in)
		require.NotContains(t, got, "s3cret")
		require.Equal(t, got, String(got), "String is idempotent on %q", c.in)
	}
}

func TestPasswordsFindsQuotedValuesWhole(t *testing.T) {
	require.Equal(t, []string{"p w"}, Passwords("host=db password='p w' user=app"))
	require.Equal(t, []string{`it's`}, Passwords(`password='it\'s'`))
	require.Equal(t, []string{"pg5"}, Passwords("postgres://app:pg5@db/x"))
	require.Equal(t, []string{"pg6"}, Passwords("postgres://app@db/x?password=pg6"))
	require.Empty(t, Passwords("password='' host=db"))

	Register("host=db user=app password='Quokka 77' dbname=x")
	require.Equal(t, "auth | *** |", String("auth | Quokka 77 |"), "a registered key=value password goes anywhere")
}
