# bash completion for ucov: commands, and each command's options as its
# --help lists them (so they never drift); files elsewhere.
# shellcheck shell=bash
_ucov() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]:-} words
  if [ "$COMP_CWORD" -eq 1 ]; then
    words=$("${COMP_WORDS[0]}" --help 2>/dev/null | sed -n 's/^  \([a-z-]\+\)  .*/\1/p')
    mapfile -t COMPREPLY < <(compgen -W "$words help --help --version" -- "$cur")
    return
  fi
  if [ "$cmd" = help ] && [ "$COMP_CWORD" -eq 2 ]; then
    words=$("${COMP_WORDS[0]}" --help 2>/dev/null | sed -n 's/^  \([a-z-]\+\)  .*/\1/p')
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  case $cur in
  -*)
    # the option lines of --help only ("  -q, --quiet", "  --test NAME, --shard S: ..."),
    # up to their description: options named in prose are other commands'
    words=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
      sed -n 's/^ \{2,\}\(-[a-zA-Z], \)\{0,1\}\(--[a-z].*\)$/\2/p' | sed 's/  .*//; s/:.*//' |
      grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    ;;
  *)
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    ;;
  esac
}
complete -o filenames -o bashdefault -F _ucov ucov
