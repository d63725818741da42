/* SPDX-License-Identifier: MIT */
/* A library kt dlopens after its keeper started (tests/e2e/keeper.sh). */
int lib_work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i & 1 ? i : -i;
  return s;
}
