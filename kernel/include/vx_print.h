/*
 * vx_print.h - device console output (source compatible with Vortex v2.x
 * kernel/include/vx_print.h).
 *
 * vx_printf, vx_putint and vx_putfloat may be called from any number of active
 * lanes: each active lane prints in turn (lowest lane first), so every lane's
 * text arrives whole in its own console slot (IO_COUT_ADDR + (mhartid & 63)).
 * vx_putchar stores one byte to the calling hart's slot, without serialising.
 */
#ifndef VX_PRINT_H
#define VX_PRINT_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

int vx_vprintf(const char *format, va_list va);
int vx_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));

void vx_putchar(int c);
void vx_putint(int value, int base);
void vx_putfloat(float value, int precision);

#ifdef __cplusplus
}
#endif

#endif /* VX_PRINT_H */
