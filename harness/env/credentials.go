package env

import (
	"fmt"
	"net/url"

	"github.com/redis/go-redis/v9"
)

// RedisCredentials is what an Env implements when its Redis needs AUTH
// (external mode with redis://user:pass@host/db). Environments the harness
// starts itself have no password and do not implement it.
type RedisCredentials interface {
	RedisCredentials() (username, password string)
}

// redisAuth returns e's Redis username and password, empty without AUTH.
func redisAuth(e Env) (string, string) {
	if c, ok := e.(RedisCredentials); ok {
		return c.RedisCredentials()
	}
	return "", ""
}

// RedisOptions are the options of a harness client of e's Redis: its
// address, database and, when it needs them, credentials. Observers and the
// consumer use clients made from these (or derived from such a client).
func RedisOptions(e Env) *redis.Options {
	user, pass := redisAuth(e)
	return &redis.Options{Addr: e.RedisAddr(), DB: e.RedisDB(), Username: user, Password: pass}
}

// RedisURL is the redis:// URL of e's database at addr (a fault-proxy link
// in front of e's Redis), with e's credentials. The proxy is plain TCP, so
// the dispatcher's AUTH passes through it to the server.
func RedisURL(e Env, addr string) string {
	u := url.URL{Scheme: "redis", Host: addr, Path: fmt.Sprintf("/%d", e.RedisDB())}
	switch user, pass := redisAuth(e); {
	case pass != "":
		u.User = url.UserPassword(user, pass)
	case user != "":
		u.User = url.User(user)
	}
	return u.String()
}
