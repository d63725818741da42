/* A cleanup variable in a loop: with clang -fexceptions, branches on a line of
 * only "}" (exclude.sh: --exclude-unreachable-branches) and exception edges. */
#include <stdio.h>
#include <stdlib.h>
static void release(char **p) {
  free(*p);
}
static void use(char *p) {
  if (p[0] == 'x')
    puts(p);
}
int main(int argc, char **argv) {
  (void)argv;
  for (int i = 0; i < argc; i++) {
    __attribute__((cleanup(release))) char *p = malloc(4);
    p[0] = 'a';
    use(p);
  }
  return 0;
}
