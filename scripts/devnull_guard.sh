#!/usr/bin/env bash
# devnull_guard.sh LOG: watch /dev/null while the test suite runs. If anything
# replaces it (a tool run as root that writes an output path of /dev/null
# through a temporary file and rename), record the processes running at that
# moment in LOG, put a real /dev/null back, and keep watching. scripts/check.sh
# fails when LOG is not empty. Runs until killed.
log=$1
: >"$log"
while :; do
  if [ ! -c /dev/null ]; then
    {
      echo "$(date -u +%FT%T.%NZ): /dev/null is no longer a character device:"
      ls -l /dev/null
      ps -eo pid,ppid,etimes,args --forest
    } >>"$log" 2>&1
    # Put it back (as root), so that the rest of the run and the machine work.
    if [ "$(id -u)" = 0 ]; then
      rm -f /dev/null && mknod -m 666 /dev/null c 1 3
    fi
  fi
  sleep 0.05
done
