#!/usr/bin/env bash
# The classroom screenshots of docs/studio.md and docs/teaching.md (issue 36), from a
# build in build/: the studio on Xvfb screens of 1280×720 and 1920×1080, without a
# window manager (scripted runs: the window at the screen's size) and with openbox
# (the window as a user opens it, maximised, grabbed from the root window with its
# frame). Needs xvfb, openbox, xdotool and imagemagick; PNGs are recompressed
# losslessly with optipng where it is installed.
#   docs/screenshots/make-projector.sh [OUT_DIR]     (default docs/screenshots)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/docs/screenshots}
studio=$root/build/app/kmeans-studio
data=(--generate blobs:n=3000,k=5,d=2 --seed 7 --k 5 --init random)
mkdir -p "$out"

shot() {  # SCREEN NAME ARGS...: a scripted run on a bare Xvfb screen of that size
  local screen=$1 name=$2
  shift 2
  xvfb-run -a -s "-screen 0 ${screen}x24" "$studio" "$@" --screenshot "$out/$name.png" >/dev/null
}

# Without a window manager.
for screen in 1280x720 1920x1080; do
  shot "$screen" "projector-single-$screen" "${data[@]}" --solver hamerly --colour bounds --voronoi --steps 3
  shot "$screen" "projector-compare2-$screen" "${data[@]}" --compare lloyd,hamerly --colour bounds --steps converge
  shot "$screen" "projector-compare3-$screen" "${data[@]}" --compare lloyd,elkan,hamerly --colour bounds --steps converge
  shot "$screen" "projector-presentation-$screen" "${data[@]}" --half-steps --presentation --steps 3
  [ "$screen" = 1280x720 ] && shot "$screen" "projector-membership-$screen" "${data[@]}" --colour membership --steps 2
done
# Lesson mode: the render test places the predictions and keeps its pictures.
KMS_SCREENSHOT_DIR=$out KMS_STUDIO=$studio QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x720x24" \
  "$root/build/tests/test_ui_classroom_render" projector_lesson_draws_predictions_and_membership_lines >/dev/null
mv "$out/lesson-predict.png" "$out/lesson-predict-1280x720.png"
mv "$out/lesson-reveal.png" "$out/lesson-reveal-1280x720.png"
rm -f "$out/membership.png"

# With openbox: the window as opened (maximised on a small screen), then Compare clicked.
with_openbox() {  # SCREEN NAME COMPARE_X COMPARE_Y
  local screen=$1 name=$2 display=:$((RANDOM % 400 + 100))
  Xvfb "$display" -screen 0 "${screen}x24" >/dev/null 2>&1 &
  local xvfb=$!
  sleep 1
  DISPLAY=$display openbox >/dev/null 2>&1 &
  local wm=$!
  sleep 1
  DISPLAY=$display "$studio" "${data[@]}" >/dev/null 2>&1 &
  local app=$!
  sleep 6
  DISPLAY=$display xdotool key End
  sleep 2
  DISPLAY=$display import -window root "$out/$name-single.png"
  DISPLAY=$display xdotool mousemove "$3" "$4" click 1
  sleep 2
  DISPLAY=$display xdotool key End
  sleep 3
  DISPLAY=$display import -window root "$out/$name-compare3.png"
  kill "$app" "$wm" "$xvfb" 2>/dev/null || true
  wait 2>/dev/null || true
}
with_openbox 1280x720 projector-openbox-1280x720 1019 56

if command -v optipng >/dev/null; then optipng -quiet -o2 "$out"/projector-*.png "$out"/lesson-*.png; fi
ls -l "$out"/projector-*.png "$out"/lesson-*.png
