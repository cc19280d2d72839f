# Sourced by scripts/test.sh (and its test, scripts/tests/test_test_env.py): make test runs without the
# services' settings that the caller's shell may hold.
#
# Why: every test sets up the configuration it checks, and anything else is the services' defaults.
# A setting left in the shell (TANDEM_ADMISSION_ENABLED=true from trying the README's overload
# advice, TANDEM_CACHE_MODE=none, SPRING_PROFILES_ACTIVE, MANAGEMENT_SERVER_PORT, TANDEM_REST_PORT)
# would reach all of them: Spring reads the environment in every test's context, the system tests'
# jars and the README stage's make run inherit it. The tests would then check a configuration nobody
# chose, failing for no fault of the code, or worse, passing on one they do not name.
#
# Kept: what moves make test's own servers and tools, as the README's "Commands" says they do
# (TANDEM_DB_PORT, SPRING_DATA_REDIS_PORT, TANDEM_RUN_DIR, and servers.sh's other knobs), where
# the JDKs are (TANDEM_JVM_DIRS) and where results go (TANDEM_RESULTS_DIR, which the Makefile sets).

# The prefixes Spring Boot's relaxed binding maps onto the services' properties (tandem.*, spring.*,
# management.*, server.*, logging.*) and the scripts' TANDEM_ knobs.
SERVICE_SETTING_PREFIXES='^(TANDEM|SPRING|MANAGEMENT|SERVER|LOGGING)_'
HARNESS_KNOBS='^(TANDEM_DB_PORT|SPRING_DATA_REDIS_PORT|TANDEM_RUN_DIR|TANDEM_MARIADB_EXTRA_ARGS|TANDEM_SERVER_START_TIMEOUT|TANDEM_SERVER_STOP_TIMEOUT|TANDEM_JVM_DIRS|TANDEM_RESULTS_DIR)$'

# Unsets every exported service setting but the harness's knobs, and says which (on stderr).
drop_service_settings() {
  local name dropped=()
  while read -r name; do
    [[ $name =~ $SERVICE_SETTING_PREFIXES && ! $name =~ $HARNESS_KNOBS ]] || continue
    dropped+=("$name")
    unset "$name"
  done < <(compgen -e)
  if (( ${#dropped[@]} )); then
    echo "make test: running without these settings from your environment, so that every test checks the configuration it sets up: ${dropped[*]}" >&2
  fi
}
