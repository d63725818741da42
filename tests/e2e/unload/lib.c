/* SPDX-License-Identifier: MIT */
/* A library loaded in many copies (tests/e2e/unload.sh). */
int lib_call(int x);

int lib_call(int x) {
  if (x % 3 == 0)
    return x / 3;
  return x + 1;
}
