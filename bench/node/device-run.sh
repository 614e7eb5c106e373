#!/usr/bin/env bash
# bench/node/device-run.sh: the whole campaign in ONE command, for a lent GPU machine with no Node, no browser and no
# network, run from the repository root beside .kit/ (built here by `bash bench/node/pack-kit.sh`: Node, the project
# with its built dist/, the packages the steps import, ONNX Runtime Web and TF.js among them). It unpacks the kit,
# finds the GPU's Vulkan ICD, then runs these steps in order of worth, each under its own timeout, all within
# KIT_BUDGET_S (570 s: one command may run 10 minutes):
#   calls   the per-call section (bench:node --calls --probes), KIT_CALL_RUNS runs (default 5) within 90 s; the first
#           with VK_ICD_FILENAMES unset (bench:node finds the driver itself), again with it set if that found none
#   decode  bench:node --cases '^decode-step$': the decode step on the runtime's own device, the gather forced and
#           the planner's choice: compiles, GPU work no call recorded, calls per step, exactness, and host time
#           against the same WebGPU calls replayed bare, with and without the release (60 s)
#   quick   bench:node --quick: the quick cases, Cleave beside ORT Web's WebGPU EP and TF.js, the copy limits, each
#           strategy forced (150 s)
#   large   bench:node --cases 128MiB: the large splits in GB/s, with the peers that can hold them (120 s)
#   models  bench:node --cases '^(pipe|decode)-' --exclude '^decode-step$': ORT's whole graph against ORT -> Cleave
#           -> ORT, the decode loops (120 s)
#   spread  bench:node on every other case, quick timing: the default plan against each strategy forced, the peers
#           beside (150 s)
#   gpu     the GPU tier, `vitest run test/gpu` (KIT_GPU_FILES: other files; 150 s)
# Each bench step loads the peers again (ORT's first run waits for V8 to compile its wasm: off the clock, not off
# the budget). KIT_STEPS picks and orders the steps; KIT_<STEP>_TIMEOUT changes one's timeout. Writes to $OUT
# (default /tmp/kit-out) six files, rewritten after every step, so a run cut short keeps what it measured:
# summary.txt (a line per step and per finding, also printed), env.txt (the GPU, driver, ICD files, Vulkan
# loader), campaign.json (every step's results in one bench:node results file: `npm run bench:report -- FILE`),
# campaign.html (its page), results.tar.gz (each step's own results files and pages), logs.tar.gz (each step's
# output). Exit code: 0 when every step passed.
#
#   bash bench/node/device-run.sh
#   KIT_STEPS="quick gpu" KIT_GPU_FILES=test/gpu/prepared.test.ts bash bench/node/device-run.sh   # a short dry run
set -u
ROOT=$(pwd)
K=${KIT_DIR:-$ROOT/.kit}
OUT=${OUT:-/tmp/kit-out}
T=${KIT_UNPACK:-/tmp/kit}
BUDGET=${KIT_BUDGET_S:-570}
STEPS=${KIT_STEPS:-calls decode quick large models spread gpu}
start=$(date +%s)
mkdir -p "$OUT"
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
left() { echo $((BUDGET - ($(date +%s) - start))); }
# A step's timeout: what it asks for, or what the budget has left (less 5 s), whichever is less.
cap() { local l=$(($(left) - 5)); echo $(($1 < l ? $1 : l)); }

[ -f "$K/project.tar.xz" ] && [ -f "$K/node.xz" ] || {
  say "no kit at $K: build it with bash bench/node/pack-kit.sh CHECKOUT, and carry .kit"
  exit 2
}

# ---- unpack (as the kit's run.sh) -------------------------------------------------------------------------------
rm -rf "$T" && mkdir -p "$T/bin"
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then
  for f in "$K"/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
  ldconfig 2>/dev/null || true
  loader="the kit's ($(ls "$K"/*.deb 2>/dev/null | xargs -n1 basename 2>/dev/null | tr '\n' ' '))"
else
  loader="the machine's"
fi
xz -dc "$K/node.xz" >"$T/bin/node" && chmod +x "$T/bin/node" && export PATH="$T/bin:$PATH"
tar -xJf "$K/project.tar.xz" -C "$T" || { say "could not unpack $K/project.tar.xz"; exit 2; }
P="$T/project"
export CI=true XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

# The ICD the steps are given: the caller's VK_ICD_FILENAMES, else NVIDIA's where the machine has it.
given=${VK_ICD_FILENAMES:-}
ICD=$given
if [ -z "$ICD" ]; then
  for f in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
    /etc/vulkan/icd.d/nvidia_icd.json; do
    [ -f "$f" ] && { ICD=$f; break; }
  done
  # NVIDIA's ICD names libGLX_nvidia.so.0, which in a headless container answers no vkCreateInstance (seen on the
  # H100 machine: "Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'"); the same driver through
  # libEGL_nvidia.so.0 opens. Use that where the library is there.
  if [ -n "$ICD" ] && ldconfig -p 2>/dev/null | grep -q 'libEGL_nvidia\.so\.0'; then
    api=$(sed -n 's/.*"api_version" *: *"\([^"]*\)".*/\1/p' "$ICD" | head -1)
    printf '{"file_format_version":"1.0.1","ICD":{"library_path":"libEGL_nvidia.so.0","api_version":"%s"}}\n' \
      "${api:-1.3.0}" >/tmp/nvidia_egl_icd.json
    ICD=/tmp/nvidia_egl_icd.json given=$ICD
  fi
fi
{
  echo "date: $(date -u +%FT%TZ); $(uname -srm); $(nproc) cores; node $(node --version)"
  echo "VK_ICD_FILENAMES given: ${given:-unset}; found: ${ICD:-none}; Vulkan loader: $loader"
  (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader) 2>&1
  echo "--- ICD files"
  ls -l /usr/local/nvidia/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d 2>&1
  [ -n "$ICD" ] && cat "$ICD" 2>&1
  echo "--- loader and driver libraries"
  ldconfig -p 2>/dev/null | grep -E 'libvulkan|libGLX_nvidia|libnvidia-glcore' || echo 'none found by ldconfig'
  env | grep -E '^(NVIDIA_|VK_|CUDA_VISIBLE)' || true
} >"$OUT/env.txt" 2>&1
say "unpacked in $(($(date +%s) - start)) s; node $(node --version); VK_ICD_FILENAMES ${ICD:-unset};" \
  "$(nvidia-smi -L 2>/dev/null | head -1 || true)"
[ -n "$ICD" ] && export VK_ICD_FILENAMES=$ICD VK_DRIVER_FILES=$ICD
cd "$P" || exit 2
R="$T/results" L="$T/logs"
mkdir -p "$R" "$L"
failed=0
parts=()
# After every step: the step's files packed, and every results file so far merged into the campaign's.
pack() {
  (cd "$R" && tar -czf "$OUT/results.tar.gz" .) 2>/dev/null || true
  [ "${#parts[@]}" -gt 0 ] && node bench/node/merge.mjs "$OUT/campaign.json" "${parts[@]}" >>"$L/merge.txt" 2>&1
  (cd "$L" && tar -czf "$OUT/logs.tar.gz" .) 2>/dev/null || true
}
# What a step's exit code says: its code, and ': timed out' where its timeout stopped it.
rcText() { echo "rc $1$([ "$1" = 124 ] && echo ': timed out')"; }

# ---- the steps ---------------------------------------------------------------------------------------------------
calls() {
  local runs=${KIT_CALL_RUNS:-5} end=$(($(date +%s) + $(cap "${KIT_CALLS_TIMEOUT:-90}"))) i rc files=()
  : >"$L/calls.txt"
  for ((i = 1; i <= runs; i++)); do
    local t=$((end - $(date +%s)))
    [ "$t" -ge 15 ] || { say "calls: time left for $((i - 1)) of $runs runs"; break; }
    local o="$R/calls-$i" t0=$(date +%s)
    mkdir -p "$o"
    echo "=== per-call run $i" >>"$L/calls.txt"
    if [ "$i" = 1 ] && [ -z "$given" ]; then
      # VK_ICD_FILENAMES unset, as a user runs it: bench:node looks for the driver itself.
      env -u VK_ICD_FILENAMES -u VK_DRIVER_FILES timeout "$t" node bench/node/run.mjs --calls --probes --out "$o" \
        >>"$L/calls.txt" 2>&1
      rc=$?
      # No adapter, or a software one, while the machine has NVIDIA's ICD: said, and run again with it set.
      local got
      got=$(grep -m1 '^adapter: ' "$L/calls.txt")
      t=$((end - $(date +%s)))
      if [ -n "$ICD" ] && [ "$t" -ge 5 ] && { [ -z "$got" ] || echo "$got" | grep -qiE 'swiftshader|llvmpipe'; }; then
        say "calls: with VK_ICD_FILENAMES unset, ${got:-no adapter} (rc $rc); again with VK_ICD_FILENAMES=$ICD"
        rm -f "$o"/node-calls-*
        timeout "$t" node bench/node/run.mjs --calls --probes --out "$o" >>"$L/calls.txt" 2>&1
        rc=$?
      fi
    else
      timeout "$t" node bench/node/run.mjs --calls --probes --out "$o" >>"$L/calls.txt" 2>&1
      rc=$?
    fi
    [ "$rc" = 0 ] || failed=1
    say "calls run $i ($(rcText "$rc")) in $(($(date +%s) - t0)) s"
    for f in "$o"/node-calls-*.json; do [ -f "$f" ] && files+=("$f") && parts+=("calls-$i=$f"); done
    pack
  done
  if [ "${#files[@]}" -gt 0 ]; then
    node bench/node/device-summary.mjs calls "${files[@]}" | tee -a "$S"
  else
    say "calls: no results (see calls.txt in logs.tar.gz)"
    failed=1
  fi
}

# bench NAME TIMEOUT ARGS...: one run of bench:node, its summary lines, its results file among the campaign's.
bench() {
  local name=$1 limit=$2 t0=$(date +%s) o="$R/$1" rc f
  shift 2
  mkdir -p "$o"
  timeout "$(cap "$limit")" node bench/node/run.mjs "$@" --out "$o" >"$L/$name.txt" 2>&1
  rc=$?
  [ "$rc" = 0 ] || failed=1
  say "$name: bench:node $* ($(rcText "$rc")) in $(($(date +%s) - t0)) s"
  # A run cut short still leaves the file it writes after each item.
  f=$(ls "$o"/node-*.json 2>/dev/null | head -1)
  if [ -n "$f" ]; then
    node bench/node/device-summary.mjs run "$name" "$f" | tee -a "$S"
    parts+=("$name=$f")
  else
    say "$name: no results file (see $name.txt in logs.tar.gz)"
  fi
  pack
}

# The decode step alone: no peer loads, nothing calibrates; its lines give each engine's host ratios and counts.
decode() { bench decode "${KIT_DECODE_TIMEOUT:-60}" --cases '^decode-step$'; }
quick() { bench quick "${KIT_QUICK_TIMEOUT:-150}" --quick; }
large() { bench large "${KIT_LARGE_TIMEOUT:-120}" --cases 128MiB; }
models() { bench models "${KIT_MODELS_TIMEOUT:-120}" --cases '^(pipe|decode)-' --exclude '^decode-step$'; }
spread() {
  # Every case the other steps leave out (with them, each case once), timed as --quick times (with --cases, --quick
  # shortens the timing and selects nothing): about 15 cases.
  local q
  q=$(node bench/node/run.mjs --quick --list | sed 's/.*/^&$/' | paste -sd'|')
  bench spread "${KIT_SPREAD_TIMEOUT:-150}" --quick --cases . --exclude "128MiB|^(pipe|decode)-${q:+|$q}"
}

gpu() {
  local t0=$(date +%s) rc line
  # shellcheck disable=SC2086
  timeout "$(cap "${KIT_GPU_TIMEOUT:-150}")" node node_modules/vitest/vitest.mjs run ${KIT_GPU_FILES:-test/gpu} \
    >"$L/gpu-tier.txt" 2>&1
  rc=$?
  [ "$rc" = 0 ] || failed=1
  line=$(sed 's/\x1b\[[0-9;]*m//g' "$L/gpu-tier.txt" | grep -aE '^[0-9]+ passed, [0-9]+ failed' | tail -1)
  say "gpu: vitest run ${KIT_GPU_FILES:-test/gpu} ($(rcText "$rc")) in $(($(date +%s) - t0)) s:" \
    "${line:-no summary line}"
  pack
}

for step in $STEPS; do
  if [ "$(left)" -lt 20 ]; then
    say "$step: skipped, the budget (KIT_BUDGET_S=$BUDGET) is spent"
    failed=1
    continue
  fi
  case "$step" in
    calls | decode | quick | large | models | spread | gpu) "$step" ;;
    *) say "unknown step $step (calls, decode, quick, large, models, spread, gpu)" && failed=1 ;;
  esac
done
pack
say "done in $(($(date +%s) - start)) s$([ "$failed" = 0 ] && echo ', every step passed' || echo ', SOME STEP FAILED')"
exit "$failed"
