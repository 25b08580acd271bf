#!/usr/bin/env bash
# Browser tests drive Debian's chromium through Playwright (executable_path=/usr/bin/chromium);
# Playwright's own browser download is unreachable here. Installs the package when missing, and
# an emoji font so pages with emoji render them (the post preview's screenshots).
set -euo pipefail
CHROMIUM=${HERALD_TEST_CHROMIUM:-/usr/bin/chromium}
EMOJI_FONT=/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
if [ -x "$CHROMIUM" ] && [ -f "$EMOJI_FONT" ]; then
  exit 0
fi
echo "installing Debian's chromium and fonts-noto-color-emoji" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
PACKAGES="chromium fonts-noto-color-emoji"
$SUDO apt-get install -y -q $PACKAGES >/dev/null || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q $PACKAGES >/dev/null; }
test -x "$CHROMIUM"
