/* hello: the smallest kernel.  Core 0 prints one line and returns 0. */
#include <vx_intrinsics.h>
#include <vx_print.h>

int main(void)
{
    if (vx_core_id() == 0) vx_printf("Hello World!\n");
    return 0;
}
