#!/usr/bin/env bash
# bookworm-backports' linux-source-6.12, fetched once into the kernel cache
# (apt-get download through a private apt directory, tests/apt_suite.sh; the
# tarball taken out of the package and kept; nothing installed).
# Usage: source_6_12.sh CACHE
# Prints "VERSION TARBALL"; says why on stderr and exits 1. Offline, the
# newest tarball fetched before.
set -u
ROOT=$1 HERE=$(cd "$(dirname "$0")" && pwd)
die() {
  echo "source_6_12: $*" >&2
  exit 1
}
# (fetch_kernel.sh's lock: both update the same private apt lists)
mkdir -p "$ROOT" && exec 8>"$ROOT/.fetch.lock" && flock -w 1800 8 || die "cannot lock $ROOT/.fetch.lock"
# shellcheck source=tests/apt_suite.sh
. "$HERE/../apt_suite.sh"
A=$ROOT/apt-bookworm-backports
if ! apt_suite bookworm-backports "$A" 2>"$ROOT/.source-6.12.err"; then
  # offline: the newest tarball fetched before, if any
  TAR=$(find "$ROOT" -maxdepth 1 -name 'linux-source-6.12_*.tar.xz' | sort -V | tail -1)
  [ -n "$TAR" ] || die "bookworm-backports' apt source: $(cat "$ROOT/.source-6.12.err")"
  ver=${TAR##*/linux-source-6.12_} && echo "${ver%.tar.xz} $TAR"
  exit 0
fi
ver=$(apt-cache "${APT[@]}" policy linux-source-6.12 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no linux-source-6.12 in bookworm-backports"
TAR=$ROOT/linux-source-6.12_$ver.tar.xz
if [ ! -f "$TAR" ]; then
  dl=$ROOT/dl-6.12.$$
  rm -rf "$dl" && mkdir -p "$dl" &&
    (cd "$dl" && apt-get "${APT[@]}" download "linux-source-6.12=$ver" >/dev/null 2>&1) &&
    dpkg-deb --fsys-tarfile "$dl"/linux-source-6.12_*.deb | tar -xf - -C "$dl" ./usr/src/linux-source-6.12.tar.xz &&
    mv "$dl/usr/src/linux-source-6.12.tar.xz" "$TAR.part" && mv "$TAR.part" "$TAR" || {
    rm -rf "$dl" "$TAR.part"
    die "linux-source-6.12=$ver: download and unpack"
  }
  rm -rf "$dl"
fi
echo "$ver $TAR"
