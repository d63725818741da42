int classify(int x);
int never(int y);
int loop(int n);
void touch(int v);
void untouched(int v);
