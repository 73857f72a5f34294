/* abi.c — libabi.so, see abi.h. */
#include "abi.h"

#include <errno.h>
#include <stdarg.h>

long abi_ten(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;
}

double abi_mixed(int a, double b, long c, float d, double e, double f, double g, double h,
                 double i, double j, double k, int l)
{
    return a + b * 2 + (double)c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10 +
           k * 11 + l * 12;
}

long abi_sum(int count, ...)
{
    va_list list;
    va_start(list, count);
    long total = 0;
    for (int n = 0; n < count; n++)
        total += n % 2 ? (long)va_arg(list, double) : va_arg(list, long);
    va_end(list);
    return total;
}

struct abi_pair abi_pair_of(long first, long second)
{
    return (struct abi_pair){first * 3, second * 5};
}

struct abi_point abi_point_of(double x, double y)
{
    return (struct abi_point){x / 2, y * 4};
}

struct abi_block abi_block_of(long seed, struct abi_block add)
{
    struct abi_block block;
    for (int n = 0; n < 8; n++)
        block.words[n] = seed * n + add.words[n];
    return block;
}

long double abi_scaled(long double value, int times)
{
    while (times-- > 0)
        value *= 3;
    return value;
}

int abi_fails_with(int code)
{
    errno = code;
    return -1;
}
