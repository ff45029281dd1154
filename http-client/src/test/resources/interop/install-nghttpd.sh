#!/bin/sh
# Installs nghttpd (Debian package nghttp2-server) so that NghttpdInteropTest runs instead of
# being skipped. Run as root on Debian/Ubuntu before the test command; harmless when present.
set -eu
if command -v nghttpd >/dev/null 2>&1; then
    exit 0
fi
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q nghttp2-server
