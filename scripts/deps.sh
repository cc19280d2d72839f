#!/usr/bin/env bash
# Installs what Tandem needs and is missing; quiet and quick when everything is there.
#
#   scripts/deps.sh [java|servers|tools|node|python|browser|k8s|fuzz|proto|all]...   (default: all)
#
#   java     check that a JDK >= 21 exists (scripts/java-home.sh); apt: openssl curl (the Java tests use them)
#   servers  apt: mariadb-server redis-server nginx (nginx: the compose balancer, which the system tests
#            run in front of the service jars, and scripts/nginx-config-test.sh checks; never as a
#            system service)
#   tools    apt: docker-compose openssl nginx nghttp2-client (h2load) curl;
#            Go: ghz, k6, grpcurl pinned into .tools/bin; Rust (cargo): oha pinned into .tools/bin
#   python   venv .tools/venv + pip install -r loadtest/requirements.txt (when that file exists)
#   node     npm ci in dashboard/ (when dashboard/package-lock.json exists)
#   browser  apt: chromium
#   k8s      Go: kustomize pinned into .tools/bin; venv .tools/k8s-venv + pip install -r
#            scripts/k8s-validate-requirements.txt (kubernetes-validate: the Kubernetes JSON schemas
#            ship inside that PyPI package, so scripts/k8s-validate.sh needs no GitHub at run time)
#   fuzz     venv .tools/fuzz-venv + pip install -r scripts/api-fuzz-requirements.txt (Schemathesis,
#            pinned, with everything it pulls in: the OpenAPI fuzzer of scripts/api-fuzz.sh; Python >= 3.11)
#   proto    npm: buf pinned into .tools/bin (scripts/proto-contract.sh: buf lint and buf breaking)
#
# apt-get update runs at most once, and only when some apt package is missing. Stamps (hashes of
# requirements.txt / package-lock.json) decide whether pip / npm run again.
#
# Measured on this kind of machine (2 cores, Debian 12, shared with other builds), from nothing:
#   apt-get update                                                  ~4 s
#   apt mariadb-server redis-server chromium docker-compose        ~81 s
#   Go, empty module and build caches: ghz 168 s, k6 180 s, grpcurl 94 s  (~7.5 min in all)
#   Go, when the build cache has them: ~2-4 s each; already in .tools/bin: skipped (<0.2 s)
#   oha (cargo install --locked, empty cargo cache): ~3-4 min; already in .tools/bin: skipped
#   python venv + loadtest/requirements.txt, no pip cache           ~31 s
#   dashboard node_modules, empty npm cache                         ~9-14 s
#   k8s: Go kustomize, empty caches ~60 s; venv + kubernetes-validate (22 MB wheel) ~25 s
#   fuzz: venv + schemathesis and its pins, no pip cache ~8 s
#   proto: buf from npm, empty npm cache ~2-3 s (go install of the same buf, empty caches: 77 s)
# Nothing to do at all: ~0.2 s.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

TOOLS_BIN=$ROOT/.tools/bin
VENV=$ROOT/.tools/venv
STAMPS=$ROOT/.tools/stamps

GHZ_VERSION=0.120.0
K6_VERSION=1.8.1
OHA_VERSION=1.16.0      # crates.io; --locked: the versions of its own Cargo.lock
GRPCURL_VERSION=1.9.4
# v5.8.3 needs Go >= 1.27; v5.8.2 builds with Go 1.26
KUSTOMIZE_VERSION=5.8.2
BUF_VERSION=1.75.0      # npm @bufbuild/buf: buf's own release binaries
K8S_VENV=$ROOT/.tools/k8s-venv
FUZZ_VENV=$ROOT/.tools/fuzz-venv

say()  { echo "deps: $*"; }
die()  { echo "deps: ERROR: $*" >&2; exit 1; }
now()  { date +%s; }

sha() { sha256sum "$1" | cut -d' ' -f1; }

# ---------------------------------------------------------------- apt
APT_WANTED=()
apt_want() { APT_WANTED+=("$@"); }

pkg_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" == installed ]]
}

apt_install_wanted() {
  local missing=() p
  for p in "${APT_WANTED[@]}"; do
    pkg_installed "$p" || missing+=("$p")
  done
  (( ${#missing[@]} )) || return 0
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: install them as root:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  local t0; t0=$(now)
  say "installing Debian packages: ${missing[*]}"
  # Keep package scripts from starting system-wide MariaDB/Redis/nginx: Tandem runs its own on other ports
  # (and needs only the nginx binary, for nginx -t).
  local made_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  local rc=0
  {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq &&
    apt-get install -y -qq "${missing[@]}"
  } >"$ROOT/.tools/apt.log" 2>&1 || rc=$?
  if [[ -n $made_policy ]]; then rm -f /usr/sbin/policy-rc.d; fi
  if (( rc != 0 )); then
    tail -n 30 "$ROOT/.tools/apt.log" >&2
    die "apt-get install ${missing[*]} failed (exit $rc); full log: .tools/apt.log"
  fi
  say "Debian packages installed in $(( $(now) - t0 )) s"
}

# ---------------------------------------------------------------- java
do_java() {
  local jh
  jh=$("$ROOT/scripts/java-home.sh") || exit 1
  [[ -n ${DEPS_VERBOSE:-} ]] && say "JDK: $jh"
  return 0
}

# ---------------------------------------------------------------- go tools
find_go() {
  if command -v go >/dev/null 2>&1; then command -v go; return; fi
  local g
  for g in /usr/local/go/bin/go /usr/lib/go/bin/go "$HOME/go/bin/go" "$HOME/sdk/go/bin/go"; do
    [[ -x $g ]] && { echo "$g"; return; }
  done
  die "Go (>= 1.26) is needed to build ghz, k6, grpcurl and kustomize; install it from go.dev or put it on PATH"
}

# go_tool NAME MODULE@VERSION EXPECTED-VERSION-TEXT LDFLAGS VERSION-ARGS...
go_tool() {
  local name=$1 pkg=$2 expect=$3 ldflags=$4; shift 4
  local bin=$TOOLS_BIN/$name
  if [[ -x $bin ]] && "$bin" "$@" 2>&1 | grep -qF -- "$expect"; then
    [[ -n ${DEPS_VERBOSE:-} ]] && say "$name $expect present"
    return 0
  fi
  local go t0; go=$(find_go); t0=$(now)
  say "building $name ($pkg) into .tools/bin ..."
  mkdir -p "$TOOLS_BIN"
  if ! GOBIN=$TOOLS_BIN GOTOOLCHAIN=local CGO_ENABLED=0 \
       "$go" install -trimpath -ldflags "-s -w $ldflags" "$pkg" >"$ROOT/.tools/go-$name.log" 2>&1; then
    tail -n 30 "$ROOT/.tools/go-$name.log" >&2
    die "go install $pkg failed; log: .tools/go-$name.log"
  fi
  "$bin" "$@" 2>&1 | grep -qF -- "$expect" ||
    die "$name built but '$name $*' does not report $expect: $("$bin" "$@" 2>&1 | head -n1)"
  say "$name $expect built in $(( $(now) - t0 )) s"
}

# oha: the open-model REST generator that corrects for coordinated omission (--latency-correction),
# from crates.io (no Debian package; wrk2 has none either and is not on a registry)
do_tools_cargo() {
  local bin=$TOOLS_BIN/oha
  if [[ -x $bin ]] && "$bin" --version 2>&1 | grep -qF -- "oha $OHA_VERSION"; then
    [[ -n ${DEPS_VERBOSE:-} ]] && say "oha $OHA_VERSION present"
    return 0
  fi
  local cargo t0; t0=$(now)
  cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
  [[ -x $cargo ]] || die "cargo (Rust) is needed to build oha; install it with rustup or put it on PATH"
  say "building oha $OHA_VERSION (crates.io) into .tools/bin ..."
  if ! "$cargo" install --quiet --locked --version "$OHA_VERSION" --root "$ROOT/.tools/cargo" oha \
       >"$ROOT/.tools/cargo-oha.log" 2>&1; then
    tail -n 30 "$ROOT/.tools/cargo-oha.log" >&2
    die "cargo install oha $OHA_VERSION failed; log: .tools/cargo-oha.log"
  fi
  mkdir -p "$TOOLS_BIN"; cp "$ROOT/.tools/cargo/bin/oha" "$bin"
  say "oha $OHA_VERSION built in $(( $(now) - t0 )) s"
}

do_tools_go() {
  go_tool ghz     "github.com/bojand/ghz/cmd/ghz@v$GHZ_VERSION"                 "$GHZ_VERSION"      "-X main.version=$GHZ_VERSION" --version
  go_tool k6      "go.k6.io/k6@v$K6_VERSION"                                      "v$K6_VERSION"      ""                              version
  go_tool grpcurl "github.com/fullstorydev/grpcurl/cmd/grpcurl@v$GRPCURL_VERSION" "v$GRPCURL_VERSION" "-X main.version=v$GRPCURL_VERSION" -version
}

# ---------------------------------------------------------------- python
do_python() {
  local req=$ROOT/loadtest/requirements.txt
  [[ -f $req ]] || { [[ -n ${DEPS_VERBOSE:-} ]] && say "no loadtest/requirements.txt; skipping the venv"; return 0; }
  # stamp = hash of requirements.txt + the venv's Python version
  local stamp=$STAMPS/pip.sha256 want=""
  pyver() { "$VENV/bin/python" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null; }
  if [[ -x $VENV/bin/python ]]; then
    want="$(sha "$req") $(pyver)"
    [[ -f $stamp && "$(cat "$stamp")" == "$want" ]] && return 0
  fi
  local t0; t0=$(now)
  if [[ ! -x $VENV/bin/python ]] || ! pyver >/dev/null; then
    local py; py=$(command -v python3) || die "python3 (>= 3.10) is needed for loadtest/"
    say "creating .tools/venv"
    rm -rf "$VENV"
    "$py" -m venv "$VENV" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  fi
  want="$(sha "$req") $(pyver)"
  say "pip install -r loadtest/requirements.txt ..."
  if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >"$ROOT/.tools/pip.log" 2>&1; then
    tail -n 30 "$ROOT/.tools/pip.log" >&2
    die "pip install failed; log: .tools/pip.log"
  fi
  mkdir -p "$STAMPS"; echo "$want" >"$stamp"
  say "python venv ready in $(( $(now) - t0 )) s"
}

# ---------------------------------------------------------------- a tool's own venv
# tool_venv VENV REQUIREMENTS STAMP-NAME MIN-PYTHON WHAT: a venv of its own for one tool (so its pins
# never meet loadtest's), rebuilt only when the requirements file or the venv's Python changed.
tool_venv() {
  local venv=$1 req=$2 name=$3 min=$4 what=$5
  local stamp=$STAMPS/$name-pip.sha256 want="" log=$ROOT/.tools/pip-$name.log
  if [[ -x $venv/bin/python ]]; then
    want="$(sha "$req") $("$venv/bin/python" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null)"
    [[ -f $stamp && "$(cat "$stamp")" == "$want" ]] && return 0
  fi
  local t0; t0=$(now)
  if [[ ! -x $venv/bin/python ]]; then
    local py; py=$(command -v python3) || die "python3 (>= $min) is needed for $what"
    "$py" -c "import sys; sys.exit(sys.version_info < tuple(int(n) for n in '$min'.split('.')))" ||
      die "$what needs python3 >= $min; $py is $("$py" -V 2>&1)"
    say "creating ${venv#"$ROOT"/}"
    "$py" -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  fi
  say "pip install -r ${req#"$ROOT"/} ..."
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "pip install for $what failed; log: ${log#"$ROOT"/}"
  fi
  want="$(sha "$req") $("$venv/bin/python" -c 'import sys; print(sys.version.split()[0])')"
  mkdir -p "$STAMPS"; echo "$want" >"$stamp"
  say "venv for $what ready in $(( $(now) - t0 )) s"
}

# ---------------------------------------------------------------- k8s (scripts/k8s-validate.sh)
do_k8s() {
  go_tool kustomize "sigs.k8s.io/kustomize/kustomize/v5@v$KUSTOMIZE_VERSION" "v$KUSTOMIZE_VERSION" "" version
  tool_venv "$K8S_VENV" "$ROOT/scripts/k8s-validate-requirements.txt" k8s 3.10 scripts/k8s-validate.sh
}

# ---------------------------------------------------------------- fuzz (scripts/api-fuzz.sh)
do_fuzz() {
  # Schemathesis 4 needs Python 3.11.
  tool_venv "$FUZZ_VENV" "$ROOT/scripts/api-fuzz-requirements.txt" fuzz 3.11 scripts/api-fuzz.sh
}

# ---------------------------------------------------------------- proto (scripts/proto-contract.sh)
# buf from npm, not go install: @bufbuild/buf is buf's release build (a static binary in the platform
# package @bufbuild/buf-linux-x64 and its kin, which npm picks and checks against the registry's
# integrity hash), installed in ~2 s where building the same version from source takes over a minute.
# .tools/bin/buf links the binary itself, so running buf needs no Node.
do_proto() {
  local bin=$TOOLS_BIN/buf
  if [[ -x $bin ]] && [[ "$("$bin" --version 2>&1)" == "$BUF_VERSION" ]]; then
    [[ -n ${DEPS_VERBOSE:-} ]] && say "buf $BUF_VERSION present"
    return 0
  fi
  command -v npm >/dev/null 2>&1 || die "Node.js >= 20 with npm is needed to install buf"
  local dir=$ROOT/.tools/buf log=$ROOT/.tools/npm-buf.log t0; t0=$(now)
  say "installing buf $BUF_VERSION (npm @bufbuild/buf) into .tools/bin ..."
  rm -rf "$dir"; mkdir -p "$dir" "$TOOLS_BIN"
  if ! npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
       "@bufbuild/buf@$BUF_VERSION" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "npm install @bufbuild/buf@$BUF_VERSION failed; log: .tools/npm-buf.log"
  fi
  local found=("$dir"/node_modules/@bufbuild/buf-*/bin/buf)
  [[ ${#found[@]} == 1 && -x ${found[0]} ]] ||
    die "npm installed no buf binary for this platform (found: ${found[*]}); log: .tools/npm-buf.log"
  ln -sfn "../${found[0]#"$ROOT/.tools/"}" "$bin"   # relative: the checkout may move
  [[ "$("$bin" --version 2>&1)" == "$BUF_VERSION" ]] ||
    die "buf installed but 'buf --version' says $("$bin" --version 2>&1 | head -n1), not $BUF_VERSION"
  say "buf $BUF_VERSION installed in $(( $(now) - t0 )) s"
}

# ---------------------------------------------------------------- node
do_node() {
  local dir=$ROOT/dashboard lock=$ROOT/dashboard/package-lock.json
  [[ -f $lock ]] || { [[ -n ${DEPS_VERBOSE:-} ]] && say "no dashboard/package-lock.json; skipping npm ci"; return 0; }
  command -v npm >/dev/null 2>&1 || die "Node.js >= 20 with npm is needed for dashboard/"
  # The stamp lives inside node_modules: deleting node_modules also forgets it.
  local stamp=$dir/node_modules/.tandem-lock.sha256 want
  want=$(sha "$lock")
  if [[ -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  local t0; t0=$(now)
  say "npm ci in dashboard/ ..."
  export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$ROOT/.tools/npm.log" 2>&1; then
    # The npm registry reachable here lacks the other platforms' optional packages (e.g.
    # @rollup/rollup-android-*), so a lock written here omits them and npm ci calls it "not in
    # sync". npm install --no-save installs exactly the locked versions and leaves the lock alone.
    if grep -q 'can only install packages when your package.json and package-lock.json' "$ROOT/.tools/npm.log"; then
      say "npm ci rejected the lock (optional packages of other platforms missing); npm install --no-save from the lock"
      if ! (cd "$dir" && npm install --no-save --no-audit --no-fund --loglevel=error) >>"$ROOT/.tools/npm.log" 2>&1; then
        tail -n 30 "$ROOT/.tools/npm.log" >&2
        die "npm install in dashboard/ failed; log: .tools/npm.log"
      fi
      # --no-save leaves the lock as it is, so what to check is what was installed: npm's record of
      # it (node_modules/.package-lock.json) must name the locked version of every package in both
      # and nothing the lock does not have (the other platforms' packages are the lock's alone).
      (cd "$dir" && node -e '
        const locked = require("./package-lock.json").packages, got = require("./node_modules/.package-lock.json").packages;
        const off = Object.keys(got).filter(k => k && (!locked[k] || locked[k].version !== got[k].version));
        for (const k of off.slice(0, 10)) console.error(k + " " + got[k].version + " (lock: " + (locked[k] ? locked[k].version : "none") + ")");
        process.exit(off.length ? 1 : 0);') 2>>"$ROOT/.tools/npm.log" ||
        die "npm install --no-save installed other versions than dashboard/package-lock.json; see .tools/npm.log"
    else
      tail -n 30 "$ROOT/.tools/npm.log" >&2
      die "npm ci failed; log: .tools/npm.log"
    fi
  fi
  echo "$want" >"$stamp"
  say "dashboard node_modules ready in $(( $(now) - t0 )) s"
}

# ---------------------------------------------------------------- main
mkdir -p "$ROOT/.tools"
# One deps.sh at a time: make test's two lanes both call it (the readme stage and the light stages),
# and two at once would run apt-get together (the second fails on dpkg's lock) or build the same
# venv or node_modules together. The lock is this process's (fd 9) and ends with it.
exec 9>>"$ROOT/.tools/deps.lock"
if ! flock -n 9; then
  say "another scripts/deps.sh is running; waiting for it (.tools/deps.lock)"
  flock 9
fi
(( $# )) || set -- all
want_java= want_servers= want_tools= want_python= want_node= want_browser= want_k8s= want_fuzz= want_proto=
for what in "$@"; do
  case $what in
    java)    want_java=1 ;;
    servers) want_servers=1 ;;
    tools)   want_tools=1 ;;
    python)  want_python=1 ;;
    node)    want_node=1 ;;
    browser) want_browser=1 ;;
    k8s)     want_k8s=1 ;;
    fuzz)    want_fuzz=1 ;;
    proto)   want_proto=1 ;;
    all)     want_java=1 want_servers=1 want_tools=1 want_python=1 want_node=1 want_browser=1 want_k8s=1 want_fuzz=1 want_proto=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) die "unknown part '$what' (use java|servers|tools|node|python|browser|k8s|fuzz|proto|all)" ;;
  esac
done

[[ -n $want_java ]]    && do_java
[[ -n $want_java ]]    && apt_want openssl curl  # the Java tests' certificates (scripts/tls-cert.sh) and HTTP/2 checks
[[ -n $want_servers ]] && apt_want mariadb-server redis-server nginx
[[ -n $want_tools ]]   && apt_want docker-compose openssl nginx nghttp2-client curl  # openssl: scripts/tls-cert.sh; nginx: scripts/nginx-config-test.sh; nghttp2-client: h2load
[[ -n $want_browser ]] && apt_want chromium
[[ -n $want_python || -n $want_k8s || -n $want_fuzz ]] && apt_want python3-venv  # Debian's python3 has no venv without it
# one apt-get run for everything that is missing
(( ${#APT_WANTED[@]} )) && apt_install_wanted
[[ -n $want_tools ]]   && do_tools_go && do_tools_cargo
[[ -n $want_python ]]  && do_python
[[ -n $want_node ]]    && do_node
[[ -n $want_k8s ]]     && do_k8s
[[ -n $want_fuzz ]]    && do_fuzz
[[ -n $want_proto ]]   && do_proto
exit 0
