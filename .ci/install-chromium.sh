#!/usr/bin/env bash
# Called by .ci/run before `make test`: Debian's Chromium for the browser tests
# (tests/web drive it through Playwright's driver; no browser is downloaded),
# Debian's Noto fonts for the scripts the client speaks (Arabic, Devanagari and
# the other scripts: fonts-noto-core; Chinese, Japanese, Korean: fonts-noto-cjk;
# tests/web/test_languages.py) and poppler-utils (pdftotext, pdftoppm) for the
# certification report's PDF checks.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-dejavu-core)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
[ -d /usr/share/fonts/truetype/noto ] || missing+=(fonts-noto-core)
[ -d /usr/share/fonts/opentype/noto ] || missing+=(fonts-noto-cjk)
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-chromium: chromium, the Noto fonts and poppler-utils present"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${missing[@]}"
/usr/bin/chromium --version
