#!/usr/bin/env bash
# tests/hprof/java_dump.sh OUT.hprof CLASS [JAVA ARGS...]: runs tests/java/CLASS.java,
# waits for its "ready pid=" line, dumps its heap with `jcmd PID GC.heap_dump`
# (live objects: a full GC first), and ends the JVM by its PID: one dump of
# java_dumps.sh.
set -euo pipefail
out=$1 cls=$2; shift 2
tmp=$(mktemp -d /tmp/java-dump.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$(dirname "$0")/java_dumps.sh" "$tmp/d" 1 0 "$cls" "$@"
mv "$tmp/d-1.hprof" "$out"
