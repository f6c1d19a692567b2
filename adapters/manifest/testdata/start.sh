#!/bin/sh
# The stand-in dispatcher of the manifest tests: it prints what it was given,
# then waits for SIGTERM and exits 0. The trap is set before the line the
# test waits for, so a SIGTERM sent on seeing it always finds it.
trap 'echo "room stopping"; exit 0' TERM
echo "room ready args=$* lease=$ROOM_LEASE dsn=$ROOM_DSN outbox=${OUTBOX_MYSQL_DSN:-none}"
while :; do sleep 0.05; done
