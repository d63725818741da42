/* tests/e2e/store.sh: a library that three test programs share. */
int lib_add(int a, int b) {
  return a + b;
}

int lib_sign(int x) {
  if (x < 0)
    return -1;
  if (x == 0)
    return 0;
  return 1;
}

int lib_loop(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i % 3 ? i : -i;
  return s;
}
