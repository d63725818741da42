/* tests/e2e/store.sh: test program 2 of three. */
int lib_add(int a, int b);
int lib_sign(int x);
int lib_loop(int n);

int main(int argc, char **argv) {
  (void)argv;
  int r = 0;
  if (2 == 1)
    r = lib_add(argc, 1) - 2;
  else if (2 == 2)
    r = lib_sign(argc - 2) + 1;
  else
    r = lib_loop(argc + 6) - lib_loop(7);
  return r;
}
