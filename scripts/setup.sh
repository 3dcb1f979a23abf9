#!/usr/bin/env bash
# Installs what building and testing Proscenium needs on Debian 12: system libraries from apt
# (only when missing) and, with --interop, the Python virtualenv for the third-party test peers.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libsqlite3-dev libssl-dev libsrtp2-dev libvpx-dev libopus-dev pkg-config python3-venv
          libavformat-dev libavcodec-dev libavutil-dev libyuv-dev)
# The interop peers: a browser for the simulcast test, ffprobe for recorded files; the network
# harness (namespaces, NAT with iptables, curl to probe a server inside one), a real TURN server
# (coturn), a TLS proxy (nginx), and the sqlite3 shell the soak's integrity check runs.
[ "${1:-}" = "--interop" ] && packages+=(chromium ffmpeg iproute2 iptables coturn nginx-light openssl curl sqlite3)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

if [ "${1:-}" = "--interop" ]; then
  if [ ! -x .venv-interop/bin/python ]; then
    python3 -m venv --system-site-packages .venv-interop
  fi
  .venv-interop/bin/pip install -q --disable-pip-version-check -r Tests/interop/requirements.txt
fi
