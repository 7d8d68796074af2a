#!/usr/bin/env bash
# Fuzzes every byte-parsing entry point of btlog with libFuzzer and AddressSanitizer.
#
#   Scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 60 seconds each, every target)
#   FUZZ_SEED=N Scripts/fuzz.sh ...           (libFuzzer's random seed, for a repeatable run)
#
# Builds btlog-fuzz with -sanitize=fuzzer,address into .build/fuzz, writes seed corpora from the
# fixture scenarios and Fixtures/ (btlog-fixtures fuzz-seeds), then runs each target for SECONDS.
# The corpus grows in .build/fuzz-corpus/TARGET across runs; a crashing input is saved to
# .build/fuzz-artifacts/TARGET/ and the script fails. To keep it as a regression test, copy it
# to Tests/BTFuzzTests/Inputs/TARGET/ (FuzzRegressionTests runs every file there).
# The summary (executions, coverage, corpus, crashes per target) goes to .build/fuzz-report.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true

if ! command -v swift >/dev/null; then echo "fuzz.sh: swift is not on PATH" >&2; exit 2; fi
# lld: gold fails with an internal error on the instrumented objects.
swift build -c release --product btlog-fuzz --build-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld 2>&1 | grep -E "error|warning: unre|Build" || true
fuzzer=.build/fuzz/release/btlog-fuzz
[ -x "$fuzzer" ] || { echo "fuzz.sh: the fuzzer did not build" >&2; exit 2; }
swift build -c release --product btlog-fixtures 2>&1 | grep -E "error" || true
seeds=.build/fuzz-seeds
rm -rf "$seeds"
.build/release/btlog-fixtures fuzz-seeds "$seeds" Fixtures >/dev/null

targets=("$@")
if [ ${#targets[@]} = 0 ]; then
    targets=(btsnoop serial-monitor h4-wire adb-output ios-packet-logger pklg pcap gzip tar btsnooz zip decoder air keys literal channel hid-descriptor gatt-value filter notes redact stats capture browse vendor diff description described merge)
fi

report=.build/fuzz-report.md
{
    echo "| Target | Seconds | Executions | Exec/s | Coverage (edges) | Features | Corpus | Crashes |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$report"
failed=0
for target in "${targets[@]}"; do
    corpus=.build/fuzz-corpus/$target
    artifacts=.build/fuzz-artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    cp -n "$seeds/$target"/* "$corpus"/ 2>/dev/null || true
    # Inputs that once crashed are seeds too: the fuzzer explores around them.
    cp -n Tests/BTFuzzTests/Inputs/"$target"/* "$corpus"/ 2>/dev/null || true
    log=.build/fuzz-$target.log
    set +e
    # -rss_limit_mb: a leak or an allocation from an unchecked length fails the run;
    # -timeout: one input taking over 10 s is a hang.
    # SWIFT_BACKTRACE off: libFuzzer reports the crash and saves the input itself.
    SWIFT_BACKTRACE=enable=no BTLOG_FUZZ_TARGET=$target "$fuzzer" "$corpus" -max_total_time="$seconds" -max_len=65536 \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        -detect_leaks=0 ${FUZZ_SEED:+-seed=$FUZZ_SEED} > "$log" 2>&1
    status=$?
    set -e
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    coverage=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    features=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    files=$(ls "$corpus" | wc -l)
    crashes=$(ls "$artifacts" | wc -l)
    echo "| $target | $seconds | ${executions:-0} | ${rate:-0} | ${coverage:-?} | ${features:-?} | $files | $crashes |" >> "$report"
    if [ $status != 0 ] || [ "$crashes" != 0 ]; then
        failed=1
        echo "fuzz.sh: $target failed (exit $status); see $log and $artifacts/" >&2
        grep -E "ERROR|Fatal error|SUMMARY|panic|Test unit written|deadly signal" "$log" | head -5 >&2 || true
        for input in "$artifacts"/*; do
            [ -f "$input" ] && { echo "fuzz.sh: $input:"; od -A x -t x1z "$input" | head -20; } >&2
        done
    fi
done
cat "$report"
exit $failed
