#!/bin/sh
# The stand-in for a careless dispatcher of the staging test: it prints every
# variable it was given (as a dispatcher that logs its configuration does),
# and each password alone as a table would show it, then runs the reference
# dispatcher named by its first argument.
env | sort
redis_pass=$(printf '%s' "$OUTBOX_REDIS_URL" | sed -n 's|^redis://[^:@/]*:\([^@]*\)@.*|\1|p')
mysql_pass=$(printf '%s' "$OUTBOX_MYSQL_DSN" | sed -n 's|^[^:@]*:\(.*\)@tcp(.*|\1|p')
echo "config | redis auth | $redis_pass"
mysql_url_pass=$(printf '%s' "$OUTBOX_MYSQL_URL" | sed -n 's|^mysql://[^:@/]*:\([^@]*\)@.*|\1|p')
echo "config | mysql auth | $mysql_pass"
echo "config | mysql url auth | $mysql_url_pass"
echo "stderr copy: $OUTBOX_REDIS_URL $OUTBOX_MYSQL_URL" >&2
exec "$@"
