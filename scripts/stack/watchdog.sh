#!/bin/sh
# Watchdog for the launcher's children (see guard.ts). The launcher holds the write end of our
# stdin and sends "+PID SIGNAL" when it starts a child and "-PID" when the child is gone. The
# kernel closes that pipe however the launcher ends, SIGKILL included, so EOF here means
# "the launcher is gone": signal what is still registered (its process group, else the pid),
# wait up to 10 s, then SIGKILL whatever is left.
trap '' INT HUP TERM
list=""
while IFS= read -r line; do
  case "$line" in
    +*) set -- ${line#+}; list="$list $1/$2" ;;
    -*) pid="${line#-}"; keep=""
        for e in $list; do case "$e" in "$pid"/*) ;; *) keep="$keep $e" ;; esac; done
        list="$keep" ;;
  esac
done
[ -z "$list" ] && exit 0
for e in $list; do
  pid="${e%/*}"; sig="${e#*/}"
  kill -"$sig" -- "-$pid" 2>/dev/null || kill -"$sig" "$pid" 2>/dev/null
done
i=0
while [ $i -lt 20 ]; do
  alive=""
  for e in $list; do kill -0 "${e%/*}" 2>/dev/null && alive=1; done
  [ -z "$alive" ] && exit 0
  sleep 0.5; i=$((i + 1))
done
for e in $list; do kill -KILL -- "-${e%/*}" 2>/dev/null || kill -KILL "${e%/*}" 2>/dev/null; done
