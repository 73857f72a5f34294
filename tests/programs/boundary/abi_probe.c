/* abi_probe.c — calls each function of libabi.so and prints what it got back, one line each;
 * test_boundary.sh compares the output with and without the audit's trampoline between them
 * (and the expected values: abi.c). */
#include "abi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    printf("ten %ld\n", abi_ten(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    printf("mixed %.2f\n", abi_mixed(1, 2.5, 3, 4.5f, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12));
    printf("sum %ld\n", abi_sum(6, 100L, 20.0, 3L, 4.0, 5000L, 60.0));
    struct abi_pair pair = abi_pair_of(7, 11);
    printf("pair %ld %ld\n", pair.first, pair.second);
    struct abi_point point = abi_point_of(9.0, 0.25);
    printf("point %.3f %.3f\n", point.x, point.y);
    struct abi_block add = {{1, 2, 3, 4, 5, 6, 7, 8}};
    struct abi_block block = abi_block_of(100, add);
    printf("block");
    for (int n = 0; n < 8; n++)
        printf(" %ld", block.words[n]);
    printf("\n");
    printf("scaled %.1Lf\n", abi_scaled(1.5L, 4));
    errno = 0;
    int status = abi_fails_with(ENOSPC);
    printf("fails %d %s\n", status, errno == ENOSPC ? "ENOSPC" : strerror(errno));
    return 0;
}
