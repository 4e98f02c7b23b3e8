#!/usr/bin/env bash
# Called by .ci/run before `make test`: Debian's dieharder for the RNG test report
# (reelforge rng-report, and the RNG report of every certification package;
# tests/ops/test_rng_report.py runs one dieharder test through it).
set -euo pipefail
if command -v dieharder >/dev/null 2>&1; then
    echo "install-dieharder: $(dieharder -l | grep -o 'dieharder version [^ ]*') present"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q dieharder
dieharder -l | head -3
