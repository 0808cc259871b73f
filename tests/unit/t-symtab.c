/*
 * t-symtab.c - the tools' C++ names (tools/common/symtab.c): a function selected by
 * its signature.  Each expected spelling is what binutils' c++filt prints for the
 * mangled name (riscv64-unknown-elf-c++filt, a second demangler), or a form vxrr does
 * not spell, which must then match nothing rather than a wrong name.
 */
#include <string.h>

#include "symtab.h"
#include "tap.h"

typedef struct sigcase {
    const char *mangled, *name;
    int match;
} sigcase;

static const sigcase cases[] = {
    {"_Z5twicei", "twice(int)", 1},
    {"_Z5twicef", "twice(int)", 0},
    {"_Z5twiceRK1P", "twice(P const&)", 1},
    {"_Z5twicePK1Pj", "twice(P const*, unsigned int)", 1},
    {"_Z5twicePK1Pj", "twice(P const *, unsigned int)", 1}, /* spaces aside */
    {"_Z1fPPK1P.isra.0", "f(P const**).isra.0", 1},         /* a GCC copy */
    {"_Z1fPPK1P.isra.0", "f(P const**)", 1},
    {"_Z1gRi", "g(int&)", 1},
    {"_Z1gOi", "g(int&&)", 1},
    {"_Z1gOi", "g(int&)", 0},
    {"_Z1fPVi", "f(int volatile*)", 1},
    {"_Z1fSt3tagRKS_", "f(std::tag, std::tag const&)", 1}, /* S_: std::tag */
    {"_ZN3geo3Box3getERKNS0_2InEPS2_", "geo::Box::get(geo::Box::In const&, geo::Box::In const*)",
     1},
    {"_ZN3geo3Box3getERKNS0_2InEPS2_", "Box::get(geo::Box::In const&, geo::Box::In const*)", 1},
    {"_ZNK3geo1VplERKS0_", "geo::V::operator+(geo::V const&) const", 1},
    {"_ZNSt6vectorIiSaIiEE9push_backERKi",
     "std::vector<int, std::allocator<int> >::push_back(int const&)", 1},
    {"_Z3maxIiET_S0_S0_", "int max<int>(int, int)", 1}, /* with the return type */
    {"_Z3maxIiET_S0_S0_", "max<int>(int, int)", 1},     /* or without */
    {"_Z3maxIiET_S0_S0_", "max<int>(int)", 0},
    {"_ZN3geo3mixIdEET_S1_RKS1_PS1_", "double geo::mix<double>(double, double const&, double*)", 1},
    {"_ZN2ns1WIiE4convIfEEiT_", "int ns::W<int>::conv<float>(float)", 1},
    {"_ZN5outer5innerIN1a1bEE3fooES2_RKS3_",
     "outer::inner<a::b>::foo(a::b, outer::inner<a::b> const&)", 1},
    {"_Z1hSt4pairIiiERKS0_", "h(std::pair<int, int>, std::pair<int, int> const&)", 1},
    {"_ZNKSt4lessIiEclERKiS2_", "std::less<int>::operator()(int const&, int const&) const", 1},
    {"_ZNVK1R1hEv", "R::h() const volatile", 1}, /* every qualifier of a member */
    {"_ZNVK1R1hEv", "R::h() const", 0},
    {"_ZN1AC2Ev", "A::A()", 1},
    {"_ZNK1AcviEv", "A::operator int() const", 1},
    /* forms not spelled: never a wrong match */
    {"_Z1kPFviE", "k(void (*)(int))", 0},
    {"_Z1fRA4_i", "f(int (&) [4])", 0},
    /* a source name that runs into the clone suffix: no signature (c++filt rejects it) */
    {"_Z12_GL6OBAL__N_14anonEc.constprop1.0", "_GL6OBAL__N_(anonEc.constpr).constprop1.0", 0},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const sigcase *c = &cases[i];
        vxd_sym s = {0x80000000u, 4, (char *)c->mangled, (char *)c->mangled};
        is_int(vxd_symtab_matches(&s, c->name), c->match, "%s %s '%s'", c->mangled,
               c->match ? "is" : "is not", c->name);
    }
    tap_done();
    return tap_exit();
}
