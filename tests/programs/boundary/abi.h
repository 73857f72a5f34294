/* abi.h — a library whose functions take and return what the x86-64 calling convention passes
 * in every way it has: integers in registers and on the stack, floating point in %xmm, a
 * variable argument list, small structs in two registers, a large one through a hidden pointer,
 * a long double on the x87 stack (test_boundary.sh: the audit's trampoline passes them all). */
#ifndef ABI_H
#define ABI_H

struct abi_pair {
    long first, second;
};
struct abi_point {
    double x, y;
};
struct abi_block {
    long words[8];
};

long abi_ten(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j);
double abi_mixed(int a, double b, long c, float d, double e, double f, double g, double h,
                 double i, double j, double k, int l);
long abi_sum(int count, ...);
struct abi_pair abi_pair_of(long first, long second);
struct abi_point abi_point_of(double x, double y);
struct abi_block abi_block_of(long seed, struct abi_block add);
long double abi_scaled(long double value, int times);
int abi_fails_with(int code);
#endif
