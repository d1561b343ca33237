# Sourced by the test scripts (run-tests.sh, test-arm64.sh, vm-images.sh).
# kill_tree PID: PID and every process under it, by PID, the deepest first
# (timeout(1) and setsid'd helpers are in groups of their own: a group kill
# would miss them)
kill_tree() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2> /dev/null); do kill_tree "$c"; done
  kill "$1" 2> /dev/null || true
}
