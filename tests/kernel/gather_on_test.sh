#!/bin/bash -e
# Documentation/dev-tools/gcov.rst's gather_on_test.sh, as its steps are
# described there: copy every .gcda of /sys/kernel/debug/gcov (read as files)
# and every .gcno link (as links) into a tarball for the build machine.
DEST=$1
GCDA=/sys/kernel/debug/gcov
if [ -z "$DEST" ]; then
  echo "Usage: $0 <output.tar.gz>" >&2
  exit 1
fi
TEMPDIR=$(mktemp -d)
echo Collecting data..
find $GCDA -type d -exec mkdir -p "$TEMPDIR"/\{\} \;
find $GCDA -name '*.gcda' -exec sh -c 'cat < $0 > '"$TEMPDIR"'/$0' {} \;
find $GCDA -name '*.gcno' -exec sh -c 'cp -d $0 '"$TEMPDIR"'/$0' {} \;
tar czf "$DEST" -C "$TEMPDIR" sys
rm -rf "$TEMPDIR"
echo "$DEST successfully created, copy to build system and unpack with:"
echo "  tar xfz $DEST"
