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

# Without a window manager (at 1920x1080 the pictures come from openbox below).
for screen in 1280x720; do
  shot "$screen" "projector-single-$screen" "${data[@]}" --solver hamerly --colour bounds --voronoi --steps 3
  shot "$screen" "projector-compare2-$screen" "${data[@]}" --compare lloyd,hamerly --colour bounds --steps converge
  shot "$screen" "projector-compare3-$screen" "${data[@]}" --compare lloyd,elkan,hamerly --colour bounds --steps converge
  shot "$screen" "projector-presentation-$screen" "${data[@]}" --half-steps --presentation --steps 3
  shot "$screen" "projector-membership-$screen" "${data[@]}" --colour membership --steps 2
done
# Lesson mode: the render test places the predictions and keeps its pictures.
KMS_SCREENSHOT_DIR=$out KMS_STUDIO=$studio QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x720x24" \
  "$root/build/tests/test_ui_classroom_render" projector_lesson_draws_predictions_and_membership_lines >/dev/null
mv "$out/lesson-predict.png" "$out/lesson-predict-1280x720.png"
mv "$out/lesson-reveal.png" "$out/lesson-reveal-1280x720.png"
rm -f "$out/membership.png"

# With openbox: the window as a user opens it (maximised on a small screen), driven with
# xdotool: lesson mode (L, five clicks, →), to convergence (End), presentation (F11), then
# Compare with three and with two solvers ticked (the toolbar's boxes and button).
with_openbox() {  # SCREEN NAME
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
  key() { DISPLAY=$display xdotool key "$1"; sleep "${2:-1}"; }
  local window
  window=$(DISPLAY=$display xdotool search --name "k-means studio" | head -1)
  click() {  # X Y in the window's coordinates
    local X Y WIDTH HEIGHT SCREEN WINDOW
    eval "$(DISPLAY=$display xdotool getwindowgeometry --shell "$window")"
    DISPLAY=$display xdotool mousemove $((X + $1)) $((Y + $2)) click 1
    sleep 0.5
  }
  grab() { DISPLAY=$display import -window root "$out/$name-$1.png"; }
  key l
  for xy in "600 170" "700 230" "640 330" "820 270" "560 390"; do click $xy; done
  grab lesson-predict
  key Right 2
  grab lesson-reveal
  key l
  key End 2
  grab single
  key F11 2
  grab presentation
  key F11 2
  click 1019 18  # Compare
  key End 3
  grab compare3
  click 675 18    # untick Elkan
  click 1019 18
  key End 3
  grab compare2
  kill "$app" "$wm" "$xvfb" 2>/dev/null || true
  wait 2>/dev/null || true
}
with_openbox 1280x720 projector-openbox-1280x720
with_openbox 1920x1080 projector-openbox-1920x1080

if command -v optipng >/dev/null; then optipng -quiet -o2 "$out"/projector-*.png "$out"/lesson-*.png; fi
ls -l "$out"/projector-*.png "$out"/lesson-*.png
