#!/usr/bin/env bash
# Generates every Smithy JSON AST model under a directory with rebound-codegen, then
# compiles all the generated files together in a throwaway crate.
#
# Measures: generation failures (exit code, first line of stderr), the wall time of
# generating all models $JOBS at a time (xargs -P) and one after another, the slowest
# models with their sizes and peak RSS; then `cargo check` of the generated code, its
# time and its errors and warnings grouped by kind and by model (CLIPPY=1 adds counts
# of `clippy -W clippy::pedantic` lints).
#
# Usage:  codegen/scripts/aws-models.sh MODELS_DIR OUT_DIR
#   MODELS_DIR: e.g. a checkout of github.com/aws/api-models-aws (any *.json under it is a model)
#   OUT_DIR:    gets src/<model>.rs, Cargo.toml, src/lib.rs, log/, gen-*.tsv, check.json, diags.tsv
# Env:  CODEGEN   the CLI (default: target/release/rebound-codegen here, built if missing)
#       REBOUND   the rebound crate the generated code uses (default: this checkout)
#       JOBS=2    generations at a time;  SEQ=0 skips the sequential run;  GEN=0 reuses OUT_DIR/src
#       CHECK=0   skips cargo check;  CLIPPY=1 adds clippy;  CHUNK=N checks N modules per crate
# Run it niced on a shared machine: nice -n 10 codegen/scripts/aws-models.sh ~/aws-models /tmp/aws-out
set -eu  # no pipefail: `sort | head` pipelines end early

models=$(realpath "${1:?usage: $0 MODELS_DIR OUT_DIR}")
out=$(realpath -m "${2:?usage: $0 MODELS_DIR OUT_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
REBOUND=${REBOUND:-$root} CODEGEN=${CODEGEN:-$root/target/release/rebound-codegen} JOBS=${JOBS:-2}
[[ -x $CODEGEN ]] || (cd "$root" && cargo build --release -p rebound-codegen)
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{printf "%.1f", $2 - $1}'; }

# One model -> OUT/src/<name>.rs; prints "name exit seconds peak_rss_kb model_bytes rs_bytes first-stderr-line".
gen() {
  local name=${1##*/} code=0 t err=""; name=${name%.json}; name=${name//[^[:alnum:]]/_}; name=${name,,}
  /usr/bin/time -f '%e\t%M' -o "$out/log/$name.time" "$CODEGEN" "$1" -o "$out/src/$name.rs" 2>"$out/log/$name.err" || code=$?
  [[ $code == 0 ]] || { rm -f "$out/src/$name.rs"; read -r err < "$out/log/$name.err" || true; }
  t=$(< "$out/log/$name.time"); printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$code" "${t##*$'\n'}" "$(stat -c %s "$1")" \
    "$(stat -c %s "$out/src/$name.rs" 2>/dev/null || echo 0)" "$err"
}
export -f gen; export CODEGEN out

if [[ ${GEN:-1} != 0 ]]; then
  rm -rf "$out/src" "$out/log"; mkdir -p "$out/src" "$out/log"
  find "$models" -name '*.json' -not -path '*/.*' | sort > "$out/models.txt"
  echo "== generating $(wc -l < "$out/models.txt") models with $CODEGEN"
  t0=$(now); xargs -P "$JOBS" -I{} bash -c 'gen "$1"' _ {} < "$out/models.txt" > "$out/gen-par.tsv"; t1=$(now)
  echo "wall time, $JOBS at a time: $(secs "$t0" "$t1") s"
  if [[ ${SEQ:-1} != 0 ]]; then
    t0=$(now); xargs -I{} bash -c 'gen "$1"' _ {} < "$out/models.txt" > "$out/gen-seq.tsv"; t1=$(now)
    echo "wall time, one at a time: $(secs "$t0" "$t1") s"
  fi
fi
rec=$out/gen-seq.tsv; [[ -s $rec ]] || rec=$out/gen-par.tsv
awk -F'\t' '{n++; s+=$3; if ($2) f++} END {printf "generated %d of %d (%d failed); sum of per-model times %.1f s\n", n-f, n, f, s}' "$rec"
echo "-- failures by kind (count, message with names blanked):"
awk -F'\t' '$2 != 0 {print $7}' "$rec" | sed -E 's/^rebound-codegen: //; s/^[^ ]+\.json:? //; s/`[^`]*`/`_`/g; s/"[^"]*"/"_"/g; s/[0-9]+/N/g' | sort | uniq -c | sort -rn
awk -F'\t' '$2 != 0 {printf "   %s (exit %s): %s\n", $1, $2, $7}' "$rec"
echo "-- slowest 5 (s, peak RSS KB, model bytes, .rs bytes):"; sort -t$'\t' -k3,3gr "$rec" | head -5 | cut -f1,3-6
echo "-- largest model:"; sort -t$'\t' -k5,5nr "$rec" | head -1 | cut -f1,3-6
[[ ${CHECK:-1} == 0 ]] && exit 0

# The throwaway crate(s): lib.rs has `pub mod <name> { include!("<name>.rs"); }` per generated model.
crate() { # DIR NAME MODULE...
  local dir=$1 name=$2 rel; shift 2; mkdir -p "$dir/src"; rel=$(realpath -m --relative-to="$dir/src" "$out/src")
  printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n[dependencies]\nrebound = { package = "rebound-retry", path = "%s" }\n' "$name" "$REBOUND" > "$dir/Cargo.toml"
  for m; do printf 'pub mod %s { include!("%s/%s.rs"); }\n' "$m" "$rel" "$m"; done | sed 's|"\./|"|' > "$dir/src/lib.rs"
}
mapfile -t mods < <(awk -F'\t' '$2 == 0 {print $1}' "$rec" | sort)
rm -rf "$out/chunks"
if [[ -n ${CHUNK:-} ]]; then
  for ((i = 0; i < ${#mods[@]}; i += CHUNK)); do crate "$out/chunks/c$((i / CHUNK))" "aws_models_c$((i / CHUNK))" "${mods[@]:i:CHUNK}"; done
  printf '[workspace]\nmembers = ["chunks/*"]\nresolver = "3"\n' > "$out/Cargo.toml"; rm -f "$out/src/lib.rs"
else
  crate "$out" aws_models "${mods[@]}"; printf '\n[workspace]\n' >> "$out/Cargo.toml"
fi

# level, code, message, model, line, source line of the primary span: one row per diagnostic.
diags() {
  jq -r 'select(.reason == "compiler-message") | .message | select(.level == "error" or .level == "warning")
    | (.spans[] | select(.is_primary)) as $s | [.level, (.code.code // "-"), .message,
      ($s.file_name | sub(".*/"; "") | sub("\\.rs$"; "")), $s.line_start, ($s.text[0].text // "" | sub("^\\s+"; ""))] | @tsv' "$1"
}
kinds() { cut -f1-3 | sed -E 's/`[^`]*`/`_`/g; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -${1:-30}; }
echo "== cargo check of ${#mods[@]} modules (${CHUNK:+$CHUNK per crate, }$out)"
t0=$(now); (cd "$out" && cargo check --workspace --keep-going --message-format=json > check.json 2> check.log) && ok=yes || ok=no; t1=$(now)
echo "cargo check: $(secs "$t0" "$t1") s, succeeded: $ok ($(grep -c '^error' "$out/check.log" || true) error lines in check.log)"
diags "$out/check.json" | awk '!seen[$0]++' > "$out/diags.tsv"
echo "-- by kind (count, level, code, message with names blanked):"; kinds < "$out/diags.tsv"
echo "-- first example of each kind (model:line: source line):"
awk -F'\t' '{k = $1 FS $3; gsub(/`[^`]*`/, "`_`", k)} !seen[k]++ {printf "   %s %s: %s\n     %s:%s: %s\n", $1, $2, $3, $4, $5, $6}' "$out/diags.tsv" | head -60
echo "-- by model (count, level, model):"; cut -f1,4 "$out/diags.tsv" | sort | uniq -c | sort -rn | head -20
if [[ ${CLIPPY:-0} != 0 ]]; then
  t0=$(now); (cd "$out" && cargo clippy --workspace --keep-going --message-format=json -- -W clippy::pedantic > clippy.json 2> clippy.log) || true; t1=$(now)
  echo "== clippy -W clippy::pedantic: $(secs "$t0" "$t1") s; by lint:"
  diags "$out/clippy.json" | awk '!seen[$0]++' | cut -f1,2 | sort | uniq -c | sort -rn
fi
