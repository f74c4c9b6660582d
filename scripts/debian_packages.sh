# shellcheck shell=bash
# Sourced by scripts/solve.sh and scripts/test.sh (issue 21, item 8: two commands on a fresh machine).
#   ensure_debian_packages NAME PACKAGE...
# Every package installed: returns at once (one dpkg-query call, about 10 ms). Otherwise installs
# the missing ones with apt-get, as root or through sudo (as .ci/run does); without either, prints
# the one apt-get command that installs them and exits 2. Not a Debian system (no dpkg-query) or
# PFSP_SKIP_PACKAGES=1: nothing is checked (cmake then names what it cannot find).
ensure_debian_packages() {
  local name=$1
  shift
  if [ "${PFSP_SKIP_PACKAGES:-0}" = 1 ] || ! command -v dpkg-query >/dev/null 2>&1; then return 0; fi
  local installed p
  local missing=()
  # "ii" = installed; a package removed with its configuration kept ("rc") counts as missing.
  installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null | awk '$2 == "ii" {print $1}')
  for p in "$@"; do
    grep -qx -- "$p" <<<"$installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local install=(apt-get install -y -qq --no-install-recommends "${missing[@]}")
  local advice="install them with: sudo apt-get update && sudo ${install[*]}"
  local as_root=()
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "$name: missing Debian packages (${missing[*]}); $advice" >&2
      exit 2
    fi
    as_root=(sudo)
  fi
  echo "$name: installing the missing Debian packages: ${missing[*]}" >&2
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq || true
  if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null; then
    echo "$name: could not install ${missing[*]}; $advice" >&2
    exit 2
  fi
}
