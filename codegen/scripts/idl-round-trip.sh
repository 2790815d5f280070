#!/usr/bin/env bash
# Every JSON AST model under MODELS_DIR through Smithy IDL and back: each is written as IDL
# (`rebound-codegen ast --format idl`), read back (`rebound-codegen ast`), and compared with the
# original as models (idl-compare.py: key order, empty lists and maps, and an operation's missing
# Unit input and output do not count); then the Rust generated from the IDL is compared byte for
# byte with the Rust generated from the JSON.
#
# Usage:  codegen/scripts/idl-round-trip.sh MODELS_DIR OUT_DIR
#   MODELS_DIR: e.g. a checkout of github.com/aws/api-models-aws (any *.json under it is a model)
#   OUT_DIR:    gets idl/<model>/*.smithy, json/, rust/, and results.tsv (model, verdict)
# Env:  CODEGEN  the CLI (default: target/release/rebound-codegen here, built if missing)
set -eu
models=$(realpath "${1:?usage: $0 MODELS_DIR OUT_DIR}")
out=$(realpath -m "${2:?usage: $0 MODELS_DIR OUT_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
CODEGEN=${CODEGEN:-$root/target/release/rebound-codegen}
[[ -x $CODEGEN ]] || (cd "$root" && cargo build --release -p rebound-codegen)
mkdir -p "$out/idl" "$out/json" "$out/rust"
: > "$out/results.tsv"
find "$models" -name '*.json' -not -path '*/.*' | sort | while read -r model; do
  name=$(basename "$model" .json)
  idl="$out/idl/$name"
  rm -rf "$idl" && mkdir -p "$idl"
  verdict=same
  if ! "$CODEGEN" ast --format idl -o "$idl" "$model" 2> "$out/json/$name.err"; then
    verdict="no IDL: $(head -1 "$out/json/$name.err")"
  elif ! "$CODEGEN" ast "$idl" > "$out/json/$name.back.json" 2> "$out/json/$name.err"; then
    verdict="does not read back: $(head -1 "$out/json/$name.err")"
  elif ! python3 "$root/codegen/scripts/idl-compare.py" "$model" "$out/json/$name.back.json" \
      > "$out/json/$name.diff"; then
    verdict="model differs: $(head -1 "$out/json/$name.diff")"
  else
    "$CODEGEN" "$model" -o "$out/rust/$name.json.rs" 2> "$out/rust/$name.err" || true
    "$CODEGEN" "$idl" -o "$out/rust/$name.idl.rs" 2>> "$out/rust/$name.err" || true
    if ! cmp -s "$out/rust/$name.json.rs" "$out/rust/$name.idl.rs"; then
      verdict="Rust differs"
    fi
  fi
  printf '%s\t%s\n' "$name" "$verdict" >> "$out/results.tsv"
done
total=$(wc -l < "$out/results.tsv")
same=$(awk -F'\t' '$2 == "same"' "$out/results.tsv" | wc -l)
echo "$same of $total models: the same model and byte-identical Rust through IDL"
awk -F'\t' '$2 != "same"' "$out/results.tsv" | head -20
