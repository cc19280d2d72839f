#!/usr/bin/env bash
# Validates the Kubernetes manifests under deploy/k8s with no cluster and no network (a make test
# stage; scripts/deps.sh k8s installs what it uses: kustomize into .tools/bin, kubernetes-validate and
# its bundled JSON schemas into .tools/k8s-venv).
#
#   1 render   kustomize build deploy/k8s, deploy/k8s/bench, deploy/k8s/extras (what kubectl apply -k
#              would send; a kustomization that does not build fails here)
#   2 files    every manifest file on its own: strict schemas of Kubernetes 1.30 and 1.37, no
#              duplicate keys, workload policy (requests, limits, probes, Redis evicting below its
#              limit) — scripts/k8s_validate.py
#   3 render   the three renders together, as they land in one namespace: the same checks, plus every
#              reference resolves (ConfigMaps/Secrets/keys, selectors, ports, Ingress backends), the
#              gRPC pods get a connection max-age (SPRING_GRPC_SERVER_KEEPALIVE_CONNECTION_MAX_AGE) and the
#              generated ConfigMap of k6 scripts equals loadtest/k6/*.js byte for byte
#   4 orphans  every manifest file is listed by a kustomization
#   5 pins     the k6 Job's image is grafana/k6 at scripts/deps.sh's K6_VERSION (the bench's k6)
#   6 self-test  deliberately broken inputs (a wrong type, a misspelt field, a removed API version, a
#              duplicate key, a workload without probes or requests, a Redis without maxmemory, a
#              dangling Secret reference
#              rendered through kustomize, gRPC pods without a connection max-age, a k6 script that
#              drifted) must each be rejected with the
#              expected message — so a check that silently passes everything fails here
# Takes a few seconds. Exit status 0 only when everything passed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

KUSTOMIZE=$ROOT/.tools/bin/kustomize
PY=$ROOT/.tools/k8s-venv/bin/python
CHECK=$ROOT/scripts/k8s_validate.py
KUBE_VERSIONS=(--kube-version 1.30.0 --kube-version 1.37.0)   # oldest we claim, newest the schemas know

say() { echo "k8s-validate: $*"; }
die() { echo "k8s-validate: ERROR: $*" >&2; exit 1; }

[[ -x $KUSTOMIZE && -x $PY ]] || die "kustomize or the validator venv is missing: run scripts/deps.sh k8s"
"$PY" -c 'import kubernetes_validate' 2>/dev/null || die "kubernetes-validate is not in .tools/k8s-venv: run scripts/deps.sh k8s"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- 1 render
KUSTOMIZATIONS=(deploy/k8s deploy/k8s/bench deploy/k8s/extras)
renders=()
for k in "${KUSTOMIZATIONS[@]}"; do
  out=$tmp/render-$(echo "$k" | tr / -).yaml
  "$KUSTOMIZE" build "$k" >"$out" || die "kustomize build $k failed"
  renders+=("$out")
done
say "rendered ${KUSTOMIZATIONS[*]} with kustomize $("$KUSTOMIZE" version)"

# ---- 2 each manifest file
mapfile -t files < <(find deploy/k8s -name '*.yaml' ! -name kustomization.yaml | sort)
"$PY" "$CHECK" check "${KUBE_VERSIONS[@]}" "${files[@]}"

# ---- 3 the renders together
all=$tmp/all.yaml
for r in "${renders[@]}"; do cat "$r"; echo "---"; done >"$all"
"$PY" "$CHECK" check "${KUBE_VERSIONS[@]}" --rendered --k6-scripts loadtest/k6 "$all"

# ---- 4 no manifest left out of the kustomizations
"$PY" "$CHECK" orphans deploy/k8s

# ---- 5 the k6 image is the bench's k6
k6_version=$(sed -n 's/^K6_VERSION=//p' scripts/deps.sh)
[[ -n $k6_version ]] || die "no K6_VERSION in scripts/deps.sh"
images=$(grep -ho 'image: grafana/k6:[^[:space:]]*' deploy/k8s/bench/*.yaml | sort -u)
[[ $images == "image: grafana/k6:$k6_version" ]] ||
  die "deploy/k8s/bench uses '${images//$'\n'/, }', scripts/deps.sh pins k6 $k6_version"
say "k6 Job image grafana/k6:$k6_version = scripts/deps.sh K6_VERSION"

# ---- 6 self-test: each broken input must be rejected, with the expected message
bad=$tmp/bad
mkdir -p "$bad"
rejected=0
# expect_reject NAME PATTERN CMD... : CMD must fail and print PATTERN
expect_reject() {
  local name=$1 pattern=$2; shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if (( rc == 0 )); then
    echo "$out" >&2; die "self-test '$name': the broken input was accepted"
  fi
  grep -qF -- "$pattern" <<<"$out" || { echo "$out" >&2; die "self-test '$name': rejected, but without '$pattern'"; }
  rejected=$(( rejected + 1 ))
}
# mutate SRC DEST SED-EXPR : a copy of SRC with one edit, which must change something
mutate() {
  sed "$3" "$1" >"$2"
  ! cmp -s "$1" "$2" || die "self-test: '$3' changed nothing in $1 (update the self-test)"
}
check() { "$PY" "$CHECK" check "${KUBE_VERSIONS[@]}" "$@"; }

mutate deploy/k8s/rest-service.yaml "$bad/type.yaml" 's/replicas: 3/replicas: three/'
expect_reject "wrong type" "spec.replicas: 'three' is not of type" check "$bad/type.yaml"

mutate deploy/k8s/rest-service.yaml "$bad/field.yaml" '0,/imagePullPolicy:/s/imagePullPolicy:/imagePullPolcy:/'
expect_reject "misspelt field" "'imagePullPolcy' was unexpected" check "$bad/field.yaml"

mutate deploy/k8s/disruption-budgets.yaml "$bad/api.yaml" '0,/policy\/v1/s/policy\/v1/policy\/v1beta1/'
expect_reject "removed API version" "has no schema for kind PodDisruptionBudget in policy/v1beta1" check "$bad/api.yaml"

cat >"$bad/bool.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  TANDEM_SEED_MODE: off
EOF
expect_reject "unquoted YAML boolean in a ConfigMap" "data.TANDEM_SEED_MODE: False is not of type 'string'" check "$bad/bool.yaml"

mutate deploy/k8s/rest-service.yaml "$bad/dup.yaml" 's/^\(  *\)replicas: 3$/\1replicas: 3\n\1replicas: 2/'
expect_reject "duplicate key" "duplicate key 'replicas'" check "$bad/dup.yaml"

cat >"$bad/policy.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: no-probes
spec:
  selector:
    matchLabels: {app: x}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
        - name: x
          image: tandem/rest-service:latest
EOF
expect_reject "workload without probes" "container x: no readinessProbe" check "$bad/policy.yaml"
expect_reject "workload without requests" "container x: no resources.requests.cpu" check "$bad/policy.yaml"

# REST probed on its API port, where a saturated pod's probe waits behind the requests
mutate deploy/k8s/rest-service.yaml "$bad/probe-port.yaml" '0,/port: management$/s/port: management$/port: http/'
expect_reject "probe on the API port" "startupProbe should use the port named management" check "$bad/probe-port.yaml"

mutate deploy/k8s/redis.yaml "$bad/redis.yaml" 's/"--maxmemory", "384mb", //'
expect_reject "Redis without maxmemory" "Redis has no --maxmemory" check "$bad/redis.yaml"

# a dangling reference, through the real kustomization
cp -r deploy/k8s "$bad/k8s"
mutate deploy/k8s/rest-service.yaml "$bad/k8s/rest-service.yaml" 's/name: tandem-secrets$/name: tandem-secret/'
"$KUSTOMIZE" build "$bad/k8s" >"$bad/dangling.yaml"
expect_reject "dangling Secret reference" "no Secret tandem-secret in this render" check --rendered "$bad/dangling.yaml"

# the gRPC pods without a connection max-age (scaled-out pods would get no calls from connected clients)
rm -rf "$bad/k8s" && cp -r deploy/k8s "$bad/k8s"
mutate deploy/k8s/tandem.env "$bad/k8s/tandem.env" '/^SPRING_GRPC_SERVER_KEEPALIVE_CONNECTION_MAX_AGE=/d'
"$KUSTOMIZE" build "$bad/k8s" >"$bad/no-max-age.yaml"
expect_reject "gRPC pods without a connection max-age" "no SPRING_GRPC_SERVER_KEEPALIVE_CONNECTION_MAX_AGE" check --rendered "$bad/no-max-age.yaml"

# a k6 script that drifted from the ConfigMap the cluster would run
cp -r loadtest/k6 "$bad/k6"
echo "// drift" >>"$bad/k6/rest.js"
expect_reject "drifted k6 script" "rest.js differs from" check --k6-scripts "$bad/k6" "${renders[1]}"

say "self-test: $rejected broken inputs rejected as expected"
say "all checks passed"
