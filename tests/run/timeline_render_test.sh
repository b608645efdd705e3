#!/usr/bin/env bash
# The timeline opens on the story, checked in a real browser: the GitLab limbo bundle
# (corpus/regressions/gitlab/limbo-411205.textproto at agent A0a, a liveness violation hours
# into the run) rendered by headless Chromium shows the violation's highlighted row on the
# first 1600x1000 screen. Skips (77) when chromium is not installed; never installs it.
#
#   tests/run/timeline_render_test.sh WSIM_BINARY SOURCE_DIR
set -euo pipefail
wsim=$1
source_dir=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wsim-timeline-render-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

if ! command -v chromium >/dev/null 2>&1; then
  echo "timeline_render_test: chromium is not installed (skipped)"
  exit 77
fi
status=0
"$wsim" run --scenario "$source_dir/corpus/regressions/gitlab/limbo-411205.textproto" \
  --set gitlab.agent=A0a --ignore-expect --out "$scratch/out" >"$scratch/run.log" 2>&1 ||
  status=$?
if [[ $status -ne 3 ]]; then  # 3: a liveness violation.
  echo "timeline_render_test: wsim run exited $status, expected 3 (liveness)" >&2
  cat "$scratch/run.log" >&2
  exit 1
fi
bundle=$(find "$scratch/out" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[[ -f $bundle/timeline.html ]] || { echo "timeline_render_test: no timeline.html" >&2; exit 1; }
grep -q '<details id="story" open>' "$bundle/timeline.html" ||
  { echo "timeline_render_test: the timeline does not open on the story" >&2; exit 1; }
WSIM_RENDER_NO_INSTALL=1 "$source_dir/scripts/render-timeline" --expect-violation-row \
  "$bundle" "$scratch/timeline.png"
