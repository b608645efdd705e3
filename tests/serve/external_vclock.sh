#!/usr/bin/env bash
# The external process's clock is a flag recorded in the bundle (issue #33, docs/external.md
# "Timers on virtual time"), with the python3-kubernetes example (examples/python-controller):
#   - `wsim serve --scenario ... -- COMMAND` records external.vclock (next-event by default,
#     `--vclock off` when given) in the bundle's scenario, and `wsim explain` prints it; so
#     does `wsim hunt --vclock off` in its bundles;
#   - `wsim replay BUNDLE -- COMMAND` (and `wsim shrink`) runs the process on the recorded clock (a bundle of
#     `--vclock off` replays without the shim), and says so when --vclock overrides it;
#   - `wsim serve --scenario FILE` of a scenario that records a clock (a corpus file) runs on it;
#   - a bundle without the field (written before wsim recorded it) replays on next-event;
#   - a bad --vclock is refused by serve, replay, hunt and shrink; a bad recorded value is an
#     error naming the file, line and field.
# WSIM_VCLOCK in the environment changes nothing (it is no longer read).
# Exits 77 (SKIP) when /usr/bin/python3 cannot import kubernetes (Debian python3-kubernetes).
# Usage: tests/serve/external_vclock.sh PATH/TO/wsim
set -uo pipefail
wsim="$(realpath "${1:?usage: external_vclock.sh WSIM}")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/serve/lib_python.sh
source "${root}/tests/serve/lib_python.sh"
cd "${example}" || exit 1
controller=("${python}" workspace_controller.py racy)

echo "--- serve, default clock (WSIM_VCLOCK=0 in the environment must not matter)"
WSIM_VCLOCK=0 timeout 120 "${wsim}" serve --scenario workspaces.textproto --seed 1 \
  --out "${work}/default" -- "${controller[@]}" >"${work}/default.txt" 2>&1
grep '^external: \|^verdict\|^bundle' "${work}/default.txt"
default=$(bundle_of "${work}/default.txt")
check "the default bundle records vclock next-event" \
  grep -q '^  vclock: "next-event"' "${default}/scenario.textproto"
check "the process ran on the virtual clock" grep -q '^external: virtual clock: ' \
  "${work}/default.txt"
"${wsim}" explain "${default}" >"${work}/explain.txt" 2>&1
check "explain prints the clock" grep -q '^  clock: next-event$' "${work}/explain.txt"

echo "--- serve --vclock off"
timeout 120 "${wsim}" serve --scenario workspaces.textproto --seed 1 --vclock off \
  --out "${work}/off" -- "${controller[@]}" >"${work}/off.txt" 2>&1
off=$(bundle_of "${work}/off.txt")
check "the --vclock off bundle records vclock off" \
  grep -q '^  vclock: "off"' "${off}/scenario.textproto"
check "the process ran on the wall clock" \
  bash -c "! grep -q '^external: virtual clock: ' '${work}/off.txt'"

echo "--- hunt --vclock off: its bundles record it"
timeout 120 "${wsim}" hunt --scenario workspaces.textproto --seed-start 1 --runs 3 --jobs 1 \
  --vclock off --out "${work}/hunt-off" -- "${controller[@]}" >"${work}/hunt-off.txt" 2>&1
hunted=$(sed -n 's/^bundle //p' "${work}/hunt-off.txt" | head -1)
check "a hunt's bundle records vclock off" grep -q '^  vclock: "off"' "${hunted}/scenario.textproto"

echo "--- replay of the off bundle: the recorded clock"
timeout 120 "${wsim}" replay "${off}" --out "${work}/replay-off" -- "${controller[@]}" \
  >"${work}/replay-off.txt" 2>&1
grep '^external: \|^note\|^replayed\|^NONDET' "${work}/replay-off.txt"
check "replay says it runs on the recorded clock (off)" \
  grep -q "^external: the process's clock: off$" "${work}/replay-off.txt"
check "replay ran the process without the shim" \
  bash -c "! grep -q '^external: virtual clock: ' '${work}/replay-off.txt'"

echo "--- replay --vclock next-event of the off bundle: an override, said"
timeout 120 "${wsim}" replay "${off}" --vclock next-event --out "${work}/replay-over" \
  -- "${controller[@]}" >"${work}/replay-over.txt" 2>&1
check "replay says --vclock overrides the recorded clock" \
  grep -q "^note: --vclock next-event overrides the bundle's off" "${work}/replay-over.txt"
check "the override ran the shim" grep -q '^external: virtual clock: ' "${work}/replay-over.txt"

echo "--- shrink of the off bundle: the recorded clock"
timeout 120 "${wsim}" shrink "${off}" --max-runs 1 --scripted-max-runs 0 -o "${work}/shrunk-off" \
  -- "${controller[@]}" >"${work}/shrink-off.txt" 2>&1
check "shrink runs the candidates on the recorded clock (off)" \
  grep -q "^external: the process's clock: off$" "${work}/shrink-off.txt"

echo "--- shrink --vclock next-event of the off bundle: the shrunk bundle records what ran"
timeout 120 "${wsim}" shrink "${off}" --vclock next-event --max-runs 1 --scripted-max-runs 0 \
  -o "${work}/shrunk-over" -- "${controller[@]}" >"${work}/shrink-over.txt" 2>&1
check "shrink says --vclock overrides the recorded clock" \
  grep -q "^note: --vclock next-event overrides the bundle's off; the shrunk bundle records" \
  "${work}/shrink-over.txt"
check "the shrunk bundle records the clock its candidates ran (next-event)" \
  grep -q '^  vclock: "next-event"' "${work}/shrunk-over/scenario.textproto"

echo "--- serve --scenario of a scenario that records a clock (a corpus file): that clock"
cp "${off}/scenario.textproto" "${work}/recorded-off.textproto"
timeout 120 "${wsim}" serve --scenario "${work}/recorded-off.textproto" --out "${work}/serve-off" \
  -- "${controller[@]}" >"${work}/serve-off.txt" 2>&1
check "serve runs a scenario's recorded clock" \
  grep -q "^external: the process's clock: off (recorded in " "${work}/serve-off.txt"
check "serve of it ran without the shim" \
  bash -c "! grep -q '^external: virtual clock: ' '${work}/serve-off.txt'"
timeout 120 "${wsim}" hunt --scenario "${work}/recorded-off.textproto" --seed-start 1 --runs 1 \
  --jobs 1 --out "${work}/hunt-recorded" -- "${controller[@]}" >"${work}/hunt-recorded.txt" 2>&1
check "hunt runs a scenario's recorded clock" \
  grep -q "^external: the process's clock: off (recorded in " "${work}/hunt-recorded.txt"
check "its bundle records the clock it ran (off)" \
  grep -q '^  vclock: "off"' "$(bundle_of "${work}/hunt-recorded.txt")/scenario.textproto"

echo "--- a bundle without the field: next-event"
cp -r "${off}" "${work}/old"
sed -i '/^  vclock: /d' "${work}/old/scenario.textproto"
timeout 120 "${wsim}" replay "${work}/old" --out "${work}/replay-old" -- "${controller[@]}" \
  >"${work}/replay-old.txt" 2>&1
check "a bundle without vclock replays on next-event" \
  grep -q "^external: the process's clock: next-event$" "${work}/replay-old.txt"
"${wsim}" explain "${work}/old" >"${work}/explain-old.txt" 2>&1
check "explain says the clock was not recorded" \
  grep -q '^  clock: not recorded (next-event' "${work}/explain-old.txt"

echo "--- bad values"
for verb in "serve --scenario workspaces.textproto" "replay ${off}" \
  "hunt --scenario workspaces.textproto --runs 1" "shrink ${off}"; do
  # shellcheck disable=SC2086
  timeout 60 "${wsim}" ${verb} --vclock sometimes -- "${controller[@]}" >"${work}/bad.txt" 2>&1
  code=$?
  check "${verb%% *} --vclock sometimes: exit 1 (usage), naming the flag and its values" \
    bash -c "[[ ${code} -eq 1 ]] && grep -q -- '--vclock' '${work}/bad.txt' && grep -q 'next-event' '${work}/bad.txt'"
done
cp -r "${off}" "${work}/bad"
sed -i 's/^  vclock: "off"/  vclock: "fast"/' "${work}/bad/scenario.textproto"
line=$(grep -n '^  vclock: ' "${work}/bad/scenario.textproto" | cut -d: -f1)
timeout 60 "${wsim}" replay "${work}/bad" -- "${controller[@]}" >"${work}/bad-recorded.txt" 2>&1
code=$?
cat "${work}/bad-recorded.txt"
check "a bad recorded vclock: exit 1, naming file, line and field" \
  bash -c "[[ ${code} -eq 1 ]] && grep -q 'scenario.textproto:${line}:.*field external.vclock' '${work}/bad-recorded.txt'"
[[ ${failures} -eq 0 ]]
