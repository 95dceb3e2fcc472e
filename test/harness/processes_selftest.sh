#!/usr/bin/env bash
# Self-test of processes.sh, the start/stop bookkeeping of control-plane.sh.
#
# The case that once failed `make run` on a loaded machine: a program whose exec comes late (the background job is
# still a copy of the shell, then setsid) was taken for one that had exited. CFO_SPAWN_DELAY makes that window
# 1 s long, so the test does not depend on the machine's load.
# Usage: processes_selftest.sh    (exit 0 when every check passes)
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=test/harness/processes.sh
source "$CFO_HARNESS_DIR/processes.sh"

state="$(mktemp -d)"
trap 'stop_one slow-server >/dev/null 2>&1 || true; rm -rf "$state"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cp "$(type -P sleep)" "$state/slow-server"
cp "$(type -P true)" "$state/quick-exit"

# 1. A program that execs late is running once spawn returns.
CFO_SPAWN_DELAY=1 spawn slow-server "$state/slow-server" 60
pid="$(running_pid slow-server)" || fail "a program that execs after 1 s is not seen running once spawn returned"
[[ "$pid" == "$(<"$state/slow-server.pid")" ]] || fail "running_pid printed $pid, not the recorded PID"
alive "$pid" || fail "alive is false for a running program"

# 2. A program that exits at once is seen as exited, although it is an unreaped child of this shell (a zombie).
spawn quick-exit "$state/quick-exit"
qpid="$(<"$state/quick-exit.pid")"
for _ in $(seq 50); do alive "$qpid" || break; sleep 0.1; done
alive "$qpid" && fail "a program that exited is still alive after 5 s"
running_pid quick-exit >/dev/null && fail "running_pid reports a program that exited"

# 3. A recorded PID that runs another program (a recycled PID) is not ours.
echo $$ >"$state/slow-server-copy.pid"
cp "$state/slow-server.exe" "$state/slow-server-copy.exe"
running_pid slow-server-copy >/dev/null && fail "running_pid accepted a PID that runs another program"

# 4. stop_one ends the program and forgets it.
stop_one slow-server 2>/dev/null
alive "$pid" && fail "stop_one left the program running"
[[ -f "$state/slow-server.pid" ]] && fail "stop_one left the PID file"
echo "processes_selftest: ok"
