# Sourced by Scripts/setup and Scripts/setup-build: messages and apt-get installs.

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || printf '%s\n' "$p"
  done
}

apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found; install these by hand: $*"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "not root and no sudo; run as root: apt-get install $*"
    sudo="sudo"
  fi
  say "installing: $*"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${FIBER_APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq || die "apt-get update failed; check the package sources, then run again"
    export FIBER_APT_UPDATED=1
  fi
  # Keep packages from starting services (nginx would take port 80).
  local policy=/usr/sbin/policy-rc.d added_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy" && added_policy=1
  fi
  $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || { [ -z "$added_policy" ] || $sudo rm -f "$policy"; die "apt-get install $* failed; run it by hand to see why"; }
  [ -z "$added_policy" ] || $sudo rm -f "$policy"
}
