# Sourced by scripts/test.sh (and its test, scripts/tests/test_prune_test_runs.py).
#
# A test that starts servers of its own on free ports (test-support LocalServers.onFreePorts, and the
# pairs and services built on it) runs them under .run/<name>-<port> and, when it is done, drops
# their data but keeps their logs, for the post-mortem of a failure. Each run picks new ports, so
# those directories piled up, one per test class and run. make test drops the earlier runs' before
# its first stage; a directory whose servers still run (another make test, a test started by hand
# in this checkout) is kept.

# Removes <run dir>/<name>-<digits> directories none of whose pid files names a live process.
prune_earlier_test_runs() {
  local run_dir=$1 dir pid_file pid live
  for dir in "$run_dir"/*/; do
    dir=${dir%/}
    [[ $(basename "$dir") =~ -[0-9]+$ ]] || continue
    live=0
    while IFS= read -r -d '' pid_file; do
      pid=$(<"$pid_file") 2>/dev/null || continue
      [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && live=1
    done < <(find "$dir" -name '*.pid' -print0 2>/dev/null)
    (( live )) || rm -rf "$dir"
  done
}
