#!/usr/bin/env bash
# Installs what building and testing Proscenium needs on Debian 12: system libraries from apt
# (only when missing) and, with --interop, the Python virtualenv for the third-party test peers.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libsqlite3-dev libssl-dev libsrtp2-dev libvpx-dev libopus-dev pkg-config python3-venv
          libavformat-dev libavcodec-dev libavutil-dev libyuv-dev libpulse-dev libsdl2-dev libx11-dev)
# The interop peers: a browser for the simulcast test, ffprobe for recorded files; the network
# harness (namespaces, NAT with iptables, curl to probe a server inside one), a real TURN server
# (coturn), a TLS proxy (nginx), the sqlite3 shell the soak's integrity check runs, an X server
# with two clients to draw on it for screen capture (xvfb, x11-apps), and a user-space sound
# server with null sinks for the microphone and speaker (pulseaudio, pulseaudio-utils).
[ "${1:-}" = "--interop" ] && packages+=(chromium ffmpeg iproute2 iptables coturn nginx-light openssl curl sqlite3 xvfb x11-apps
                                         pulseaudio pulseaudio-utils)
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
