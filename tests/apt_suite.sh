# shellcheck shell=bash
# apt_suite SUITE DIR: APT set to the apt-get options of a private apt
# directory DIR whose one source is the machine's own Debian source with
# its suite changed to SUITE (bookworm-backports, trixie, ...): deb822
# (/etc/apt/sources.list.d/debian.sources, the stanza of the main suite) or
# one-line ("deb URI bookworm main"). The system's sources and lists stay
# as they are. Lists updated; 0, or 1 with the reason on stderr.
apt_suite() {
  local suite=$1 dir=$2
  rm -rf "$dir/parts" && mkdir -p "$dir/parts" "$dir/lists/partial" "$dir/cache/archives/partial" || {
    echo "apt_suite: cannot make $dir" >&2
    return 1
  }
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    awk -v suite="$suite" 'BEGIN { RS = ""; ORS = "\n\n" }
      /(^|\n)Types:[^\n]*deb/ && /(^|\n)Suites:[ \t]*bookworm([ \t]|\n|$)/ && !done {
        gsub(/(^|\n)Suites:[^\n]*/, "\nSuites: " suite); sub(/^\n/, ""); print; done = 1 }' \
      /etc/apt/sources.list.d/debian.sources >"$dir/parts/debian.sources"
  fi
  if [ ! -s "$dir/parts/debian.sources" ]; then
    awk -v suite="$suite" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i == "bookworm") {
        $i = suite; print; exit } }' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      >"$dir/parts/debian.list"
    rm -f "$dir/parts/debian.sources"
    [ -s "$dir/parts/debian.list" ] || {
      echo "apt_suite: no Debian bookworm source in the machine's apt configuration" >&2
      return 1
    }
  fi
  APT=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$dir/parts" -o "Dir::State::Lists=$dir/lists"
    -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)
  apt-get "${APT[@]}" update >"$dir/update.log" 2>&1 || {
    echo "apt_suite: apt-get update for $suite: $(tail -2 "$dir/update.log")" >&2
    return 1
  }
}
