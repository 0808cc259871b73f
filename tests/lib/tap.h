/*
 * tap.h - a tiny TAP producer for C tests (Test Anything Protocol, version 12).
 *
 *   tap_plan(n) or tap_done() at the end (no plan),
 *   ok(cond, fmt, ...), is_u32/is_u64/is_int/is_str(got, want, fmt, ...),
 *   diag(fmt, ...), skip(n, why), tap_bail(fmt, ...).
 * tap_exit() returns the process status: 0 if every test passed.
 */
#ifndef VX_TAP_H
#define VX_TAP_H

#include <stdint.h>

void tap_plan(int n);
void tap_done(void);
int tap_exit(void);
int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int is_u32(uint32_t got, uint32_t want, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int is_u64(uint64_t got, uint64_t want, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int is_int(long long got, long long want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int is_str(const char *got, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void skip(int n, const char *why);
void tap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
