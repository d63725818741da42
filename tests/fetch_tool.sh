#!/usr/bin/env bash
# A tool from another Debian suite's package, for the tests that compare
# with a newer version than Debian 12 has (lcov 2.x and gcovr 7.x are in
# Debian 13, trixie): the package downloaded from the machine's own Debian
# source with the suite changed (tests/apt_suite.sh), unpacked into the
# cache, nothing installed. Its dependencies are Debian 12's packages, which
# scripts/deps.sh installs (lcov: libcapture-tiny-perl, libdatetime-perl,
# libtimedate-perl; gcovr: python3-colorlog, python3-tomli).
# Usage: fetch_tool.sh SUITE CACHE PACKAGE
#   Prints the unpacked root (ROOT/usr/bin/lcov, ROOT/usr/lib/python3/
#   dist-packages/gcovr); says why on stderr and exits 1 if not.
#   lcov's scripts name /usr/lib/lcov and /usr/bin: they are pointed at ROOT.
set -u
SUITE=$1 CACHE=$2 PKG=$3
die() {
  echo "fetch_tool: $*" >&2
  exit 1
}
# shellcheck source=tests/apt_suite.sh
. "$(dirname "$0")/apt_suite.sh"
mkdir -p "$CACHE" || die "cannot make $CACHE"
# One fetch at a time per cache: tests run in parallel, and apt-get holds a
# lock on the lists while two fetches would share the download directory.
exec 9>"$CACHE/.fetch.lock" && flock -w 1800 9 || die "cannot lock $CACHE/.fetch.lock"
A=$CACHE/apt-$SUITE
apt_suite "$SUITE" "$A" || die "no apt source for $SUITE"
ver=$(apt-cache "${APT[@]}" show "$PKG" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -1)
[ -n "$ver" ] || die "no $PKG in $SUITE"
root=$CACHE/$PKG-$ver
if [ ! -f "$root/.done" ]; then
  rm -rf "$root" "$A/dl" && mkdir -p "$A/dl" || die "cannot make $A/dl"
  (cd "$A/dl" && apt-get "${APT[@]}" download "$PKG=$ver" >/dev/null 2>&1) || die "download $PKG=$ver"
  dpkg-deb -x "$A"/dl/"$PKG"_*.deb "$root" || die "unpack $PKG=$ver"
  if [ "$PKG" = lcov ]; then
    # (the scripts find their modules and each other by these paths)
    sed -i -e "s|use lib \"/usr/lib/lcov\"|use lib \"$root/usr/lib/lcov\"|" \
      -e "s|save_cmd_line(\\\\@ARGV, \"/usr/bin\")|save_cmd_line(\\\\@ARGV, \"$root/usr/bin\")|" \
      "$root"/usr/bin/* || die "patch lcov's scripts"
    sed -i "s|our \$tool_dir  = \"/usr/bin\"|our \$tool_dir  = \"$root/usr/bin\"|" \
      "$root/usr/lib/lcov/lcovutil.pm" || die "patch lcovutil.pm"
  fi
  rm -rf "$A/dl"
  touch "$root/.done"
fi
echo "$root"
