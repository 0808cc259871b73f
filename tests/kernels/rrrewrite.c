/* rrrewrite - rewrites one word of every page of a 16 MiB region, 16 times (t5002: the
 * checkpoints take the pages the machine copies; --mem must bound them). */
int main(void)
{
    volatile unsigned *buf = (volatile unsigned *)0x10000000;
    for (unsigned pass = 1; pass <= 16; pass++)
        for (unsigned i = 0; i < (16u << 20) / 4; i += 1024)
            buf[i] = pass;
    return 0;
}
