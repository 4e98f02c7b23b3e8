#!/usr/bin/env bash
# Called by .ci/run before `make test`: Debian's Chromium for the browser tests
# (tests/web drive it through Playwright's driver; no browser is downloaded).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    echo "install-chromium: /usr/bin/chromium present"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium fonts-dejavu-core
/usr/bin/chromium --version
