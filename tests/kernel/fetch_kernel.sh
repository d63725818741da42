#!/usr/bin/env bash
# A Debian kernel of one suite, for the kernel tests: its headers and kbuild
# (to build ucov.ko and the modules against) and its image (to boot), from
# Debian's packages, cached.
# Usage: fetch_kernel.sh SUITE CACHE [FLAVOUR]
#   SUITE  bookworm: the linux-headers-*-amd64 installed here (scripts/deps.sh
#          installs them), and the image of the same version;
#          bookworm-backports (or any other suite of the machine's Debian
#          archive), or another flavour: the newest
#          linux-headers-<version>-FLAVOUR of that suite, unpacked into the
#          cache with its kbuild and image, nothing installed. The suite's
#          apt source is the machine's own Debian source (deb822 or
#          one-line) with the suite changed, used through a private apt
#          directory.
#   CACHE  the cache's root (one directory per kernel version beneath it).
#   FLAVOUR  amd64 (the default), or rt-amd64 (PREEMPT_RT).
# Prints "KDIR VMLINUZ" on success; says why on stderr and exits 1 if not.
set -u
SUITE=$1 ROOT=$2 FLAVOUR=${3:-amd64}
die() {
  echo "fetch_kernel: $*" >&2
  exit 1
}
mkdir -p "$ROOT" || die "cannot make $ROOT"
# One fetch at a time per cache (kernel tests may run in parallel).
exec 9>"$ROOT/.fetch.lock" && flock -w 1800 9 || die "cannot lock $ROOT/.fetch.lock"

# image_of KVER PKGVER DIR: DIR/vmlinuz from linux-image-KVER=PKGVER (the
# signed package, or the unsigned one), with the apt options in APT.
image_of() {
  local kver=$1 pkgver=$2 dir=$3 p
  [ -f "$dir/vmlinuz" ] && return 0
  rm -rf "$dir/dl" "$dir/x" && mkdir -p "$dir/dl" || return 1
  for p in "linux-image-$kver" "linux-image-$kver-unsigned"; do
    (cd "$dir/dl" && apt-get "${APT[@]}" download "$p=$pkgver" >/dev/null 2>&1) && break
  done
  compgen -G "$dir/dl/linux-image-*.deb" >/dev/null || return 1
  dpkg-deb -x "$dir"/dl/linux-image-*.deb "$dir/x" &&
    cp "$dir/x/boot/vmlinuz-$kver" "$dir/vmlinuz.part" && mv "$dir/vmlinuz.part" "$dir/vmlinuz" &&
    rm -rf "$dir/dl" "$dir/x"
}

if [ "$SUITE" = bookworm ] && [ "$FLAVOUR" = amd64 ]; then
  APT=()
  KDIR=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-amd64' 2>/dev/null | sort -V | tail -1)
  [ -n "$KDIR" ] && [ -f "$KDIR/Module.symvers" ] ||
    die "no linux-headers-*-amd64 with its Module.symvers (scripts/deps.sh installs them)"
  kver=${KDIR##*/linux-headers-}
  pkgver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)
  dir=$ROOT/$kver-$pkgver
  image_of "$kver" "$pkgver" "$dir" || die "the image of linux-image-$kver=$pkgver"
  echo "$KDIR $dir/vmlinuz"
  exit 0
fi

# Another suite: the machine's Debian source with that suite, in a private
# apt directory (the system's sources and lists stay as they are).
# shellcheck source=tests/apt_suite.sh
. "$(dirname "$0")/../apt_suite.sh"
A=$ROOT/apt-$SUITE
apt_suite "$SUITE" "$A" || die "no apt source for $SUITE"
# The newest linux-headers-<version>-FLAVOUR of the suite (amd64: not cloud, not rt).
pkg=$(apt-cache "${APT[@]}" search --names-only "^linux-headers-[0-9].*-$FLAVOUR\$" 2>/dev/null |
  awk '{print $1}' | { if [ "$FLAVOUR" = amd64 ]; then grep -v -e cloud -e rt-amd64; else cat; fi; } |
  sort -V | tail -1)
[ -n "$pkg" ] || die "no linux-headers-*-$FLAVOUR in $SUITE"
kver=${pkg#linux-headers-}
pkgver=$(apt-cache "${APT[@]}" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -1)
dir=$ROOT/$kver-$pkgver
KDIR=$dir/root/usr/src/linux-headers-$kver
if [ ! -f "$dir/ready" ]; then
  rm -rf "$dir/root" "$dir/debs" && mkdir -p "$dir/debs" || die "cannot make $dir"
  # The headers, the headers they include, and the kbuild they name.
  common=$(apt-cache "${APT[@]}" show "$pkg=$pkgver" | sed -n 's/^Depends: //p' | tr ',' '\n' |
    grep -o 'linux-headers-[^ ]*-common[^ ,]*' | head -1)
  kbuild=$(apt-cache "${APT[@]}" show "$pkg=$pkgver" | sed -n 's/^Depends: //p' | tr ',' '\n' |
    grep -o 'linux-kbuild-[^ ]*' | head -1)
  [ -n "$common" ] && [ -n "$kbuild" ] || die "$pkg: no -common or kbuild package in its Depends"
  (cd "$dir/debs" && apt-get "${APT[@]}" download "$pkg=$pkgver" "$common=$pkgver" "$kbuild=$pkgver" \
    >"$dir/download.log" 2>&1) || die "apt-get download: $(tail -2 "$dir/download.log")"
  for d in "$dir"/debs/*.deb; do
    dpkg-deb -x "$d" "$dir/root" || die "dpkg-deb -x $d"
  done
  # The headers' Makefile includes the -common one by its installed path.
  sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$KDIR/Makefile" &&
    [ -f "$KDIR/Module.symvers" ] || die "$KDIR is not a kbuild tree"
  rm -rf "$dir/debs"
  touch "$dir/ready"
fi
# Module BTF: kbuild runs pahole where the headers carry vmlinux's BTF.
if [ -f "$KDIR/vmlinux" ] && ! command -v pahole >/dev/null; then
  die "pahole is missing: the $kver headers generate BTF for modules (scripts/deps.sh installs dwarves)"
fi
image_of "$kver" "$pkgver" "$dir" || die "the image of linux-image-$kver=$pkgver"
echo "$KDIR $dir/vmlinuz"
