#!/usr/bin/env bash
# fetch_source.sh PACKAGE DEST: download a Debian source package and unpack its
# upstream tarball into DEST, without touching the system's apt configuration.
# The deb-src source is derived from the machine's own
# /etc/apt/sources.list.d/debian.sources (Types: deb -> deb-src).
set -euo pipefail
pkg=$1 dest=$2
[ -d "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ] && exit 0
here=$(cd "$(dirname "$0")" && pwd)
apt_dir=$here/work/apt
src_list=/etc/apt/sources.list.d/debian.sources
[ -f "$src_list" ] || { echo "fetch_source: no $src_list to derive a deb-src entry from" >&2; exit 1; }
mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/dl"
sed 's/^Types: deb$/Types: deb-src/' "$src_list" >"$apt_dir/sources/debian-src.sources"
apt_opts=(-o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$apt_dir/sources"
  -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update
(cd "$apt_dir/dl" && apt-get "${apt_opts[@]}" -qq source --download-only "$pkg")
orig=$(find "$apt_dir/dl" -maxdepth 1 -name "${pkg}_*.orig.tar.*" | sort | head -1)
mkdir -p "$dest"
tar -xf "$orig" -C "$dest" --strip-components=1
echo "fetch_source: $pkg -> $dest ($(basename "$orig"))" >&2
