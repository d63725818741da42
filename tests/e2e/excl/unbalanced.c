/* Unbalanced markers, for tests/e2e/exclude.sh. */
int f(int x) {
  if (x > 2) // LCOV_EXCL_STOP
    return 1;
  // LCOV_EXCL_BR_START
  return x;
}

int main(void) { // GCOVR_EXCL_START
  return f(1) == 2;
}
