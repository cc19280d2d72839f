#!/usr/bin/env bash
# Prints a bearer token that may write (scope tandem:write), signed with TANDEM_AUTH_JWT_SECRET —
# the development secret when unset, as the services default to it. Only the token goes to stdout:
#
#   TOKEN=$(make -s token)    # or scripts/token.sh
#   curl -H "Authorization: Bearer $TOKEN" ...      grpcurl -H "authorization: Bearer $TOKEN" ...
#
# It runs dev.tandem.auth.DevTokens from the REST jar (built first when missing). Knobs:
#   TANDEM_TOKEN_TTL (ISO-8601 duration, P30D)  TANDEM_TOKEN_SCOPE (tandem:write; blank: no scope)
#   TANDEM_TOKEN_SUBJECT (dev: the client the rate limit counts the token's requests against)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JAR=$ROOT/rest-service/target/rest-service.jar

if [[ ! -f $JAR ]]; then
  echo "token: building rest-service/target/rest-service.jar first ..." >&2
  (cd "$ROOT" && ./mvnw -B -q package -DskipTests -pl rest-service -am) >&2
fi
java_home=$("$ROOT/scripts/java-home.sh")
# The jar's main class is the service; Boot's PropertiesLauncher runs another class of the same jar.
exec "$java_home/bin/java" -cp "$JAR" -Dloader.main=dev.tandem.auth.DevTokens \
  org.springframework.boot.loader.launch.PropertiesLauncher
