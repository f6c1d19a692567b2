package env

// inPlaceRestarter is an environment that says whether it can kill its
// MySQL server and start it again in place.
type inPlaceRestarter interface {
	mysqlRestartInPlace() string
}

// MySQLRestartInPlace says why e cannot SIGKILL its MySQL server and start
// it again on the same address with the same data (InnoDB crash recovery,
// the run's fault-proxy links still pointing at it), or "" when it can.
func MySQLRestartInPlace(e Env) string {
	if r, ok := e.(inPlaceRestarter); ok {
		return r.mysqlRestartInPlace()
	}
	return "the " + e.Name() + " environment does not say it can kill and restart MySQL on the same port"
}

// The local environment's mariadbd is SIGKILLed and started again on the
// same port with its data directory (localenv).
func (e *localEnv) mysqlRestartInPlace() string { return "" }

func (e *externalEnv) mysqlRestartInPlace() string {
	return "the external environment's MySQL belongs to you: the harness never kills or restarts it " +
		"(run with OUTBOXCHAOS_ENV=local for private servers it can crash)"
}

func (e *containerEnv) mysqlRestartInPlace() string {
	return "the testcontainers environment stops and starts the MySQL container, and Docker may map a new host port " +
		"at the start, which the run's fault-proxy links (pointed at the old one) do not follow; " +
		"run with OUTBOXCHAOS_ENV=local to kill and restart MySQL on the same port"
}
