# shellcheck shell=bash
# Bookkeeping of the long-running programs a harness script starts (sourced, not run; needs lib.sh first).
#
# Every function works on the folder in $state: <name>.pid (the PID), <name>.exe (the resolved path of the program),
# <name>.log (its stdout and stderr).
#
# Provides:
#   alive PID               true when the process exists and has not exited (a zombie counts as exited)
#   running_pid NAME        prints the PID of NAME when it is alive and runs the program spawn recorded
#   spawn NAME PROGRAM ARG...  starts PROGRAM detached (setsid, no inherited stdio) and returns once PROGRAM itself
#                           runs or the job has ended; CFO_SPAWN_DELAY (seconds, for the self-test) delays the exec,
#                           as a loaded machine can
#   stop_one NAME           SIGTERM, then SIGKILL after 10 s

# True when process $1 exists and has not exited: kill -0 alone also succeeds on a zombie (a child of ours that died
# and was not reaped yet), so the state letter in /proc/<pid>/stat is read too.
alive() {
  local pid="$1" stat
  kill -0 "$pid" 2>/dev/null || return 1
  stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"  # the fields after "(comm) "; the first is the state
  [[ "${stat:0:1}" != Z ]]
}

# True when process $1 runs the program recorded for $2 by spawn (<state>/<name>.exe, the resolved path).
runs_program() {
  local exe want
  exe="$(readlink "/proc/$1/exe" 2>/dev/null)" || return 1
  want="$(cat "$state/$2.exe" 2>/dev/null)" || return 1
  [[ "${exe% (deleted)}" == "$want" ]]
}

# Prints the PID recorded in <state>/<name>.pid when that process is alive and runs the program we started (a guard
# against a recycled PID when called later, e.g. by `stop` or `status`). spawn() returns only once the program runs,
# so a process that is still starting is never mistaken for one that is gone.
running_pid() {
  local name="$1" pid
  [[ -f "$state/$name.pid" ]] || return 1
  pid="$(<"$state/$name.pid")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  runs_program "$pid" "$name" || return 1
  echo "$pid"
}

stop_one() {
  local name="$1" pid i
  if pid="$(running_pid "$name")"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      cfo_log "$name (pid $pid) still running after 10 s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
    cfo_log "stopped $name (pid $pid)"
  fi
  rm -f "$state/$name.pid" "$state/$name.exe"
}

# Starts a long-running program detached from the caller (own session, no inherited stdio, so that callers such as
# ctest do not wait for it), logging to <state>/<name>.log and recording its PID. The background job is first a copy
# of this shell, then setsid, then the program: spawn waits (up to 30 s, however loaded the machine) until the
# program itself runs or the job has ended, so that later liveness checks see either the program or its exit.
spawn() {
  local name="$1" pid i
  shift
  readlink -f -- "$1" >"$state/$name.exe"
  if [[ -n "${CFO_SPAWN_DELAY:-}" ]]; then
    # shellcheck disable=SC2016
    setsid bash -c 'sleep "$0"; exec "$@"' "$CFO_SPAWN_DELAY" "$@" </dev/null >"$state/$name.log" 2>&1 &
  else
    setsid "$@" </dev/null >"$state/$name.log" 2>&1 &
  fi
  pid=$!
  echo "$pid" >"$state/$name.pid"
  for ((i = 0; i < 600; i++)); do
    alive "$pid" || return 0
    runs_program "$pid" "$name" && return 0
    sleep 0.05
  done
  cfo_log "$name (pid $pid) did not start its program within 30 s"
}

