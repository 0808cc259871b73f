/* err.c - vx_strerror() from the VX_ERR_LIST X-macro. */
#include "vx_err.h"

const char *vx_strerror(vx_err err)
{
    switch (err) {
#define VX_ERR_CASE_(name, val, msg) \
    case name: return msg;
        VX_ERR_LIST(VX_ERR_CASE_)
#undef VX_ERR_CASE_
    }
    return "unknown error";
}
