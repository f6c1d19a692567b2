#!/bin/sh
# The stand-in dispatcher of the manifest tests: it prints what it was given,
# then waits for SIGTERM and exits 0.
echo "room ready args=$* lease=$ROOM_LEASE dsn=$ROOM_DSN outbox=${OUTBOX_MYSQL_DSN:-none}"
trap 'echo "room stopping"; exit 0' TERM
while :; do sleep 0.05; done
