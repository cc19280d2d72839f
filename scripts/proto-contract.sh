#!/usr/bin/env bash
# The proto contract as code (a make test stage; README "The proto contract"): buf 1.75.0 from
# .tools/bin (scripts/deps.sh proto installs it), configured by proto/buf.yaml.
#
#   scripts/proto-contract.sh [check] [PROTO_DIR]
#       1 lint      buf lint: STANDARD, with buf.yaml's documented exceptions
#       2 breaking  buf breaking (FILE) against the committed baseline image proto/buf-baseline.binpb:
#                   the contract clients were given. A compatible change (a new field or RPC) passes
#                   without touching it; only a deliberate break, or publishing what was added so that
#                   it is held too, rebuilds it. Never rebuilt as a routine step, so a checkout of any
#                   commit (CI's included) is checked against that contract, not against itself.
#   scripts/proto-contract.sh baseline [PROTO_DIR]
#       rebuilds that image from the protos as they are; commit it on its own, saying why
#
# PROTO_DIR (default proto/) is the directory of buf.yaml; the tests point it at a copy. Every check
# runs; exit status 0 only when all passed. Takes well under a second.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUF=${BUF:-$ROOT/.tools/bin/buf}

action=check
[[ ${1:-} == check || ${1:-} == baseline ]] && { action=$1; shift; }
PROTO_DIR=${1:-$ROOT/proto}
MODULE=$PROTO_DIR/src/main/protobuf          # Tandem's own files: the module that buf breaking compares
BASELINE=$PROTO_DIR/buf-baseline.binpb

say() { echo "proto-contract: $*"; }
die() { echo "proto-contract: ERROR: $*" >&2; exit 2; }

[[ -x $BUF ]] || die "no buf at $BUF: run scripts/deps.sh proto"
[[ -f $PROTO_DIR/buf.yaml ]] || die "no buf.yaml in $PROTO_DIR"

# build_image OUT: the module's descriptors, with its imports (buf breaking resolves them from the image)
# and without source info: comments are not the contract, so editing one never changes the image.
build_image() { "$BUF" build "$MODULE" --exclude-source-info -o "$1" || die "buf build failed"; }

if [[ $action == baseline ]]; then
  build_image "$BASELINE"
  say "wrote ${BASELINE#"$ROOT"/}; commit it on its own, saying why the contract changes"
  exit 0
fi

# msvs: each finding as file(line,column) : error RULE_ID : message, so the rule to look up or to
# except is named (buf's default text format leaves it out)
rc=0
if "$BUF" lint "$PROTO_DIR" --error-format=msvs; then
  say "buf lint: ok"
else
  rc=1
  say "buf lint FAILED: each line above names a file(line,column) and the STANDARD rule it breaks. Fix the" \
      "proto, or if a rule cannot apply, add a scoped exception to buf.yaml with the reason and list it in" \
      "the README's \"The proto contract\""
fi
[[ -f $BASELINE ]] || die "no baseline image ${BASELINE#"$ROOT"/}: scripts/proto-contract.sh baseline makes it"
breaking_ok=""
if "$BUF" breaking "$MODULE" --against "$BASELINE" --error-format=msvs; then
  breaking_ok=1
  say "buf breaking against ${BASELINE#"$ROOT"/}: ok"
else
  rc=1
  say "buf breaking FAILED: the lines above are changes that break clients of the committed contract" \
      "(${BASELINE#"$ROOT"/}). Undo them (adding a field, a message or an RPC never breaks; mark what" \
      "should go [deprecated = true] instead of deleting it), or, if the break is deliberate and every" \
      "client moves with it, run scripts/proto-contract.sh baseline and commit the new image, saying why"
fi
exit $rc
