#include <stdio.h>

int main(int argc, char **argv)
{
    const char *name = "world";
    if (argc > 1)
        name = argv[1];
    printf("hello, %s\n", name);
    return 0;
}
