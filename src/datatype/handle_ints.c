/*
 * MPI_Type_toint/fromint and MPI_Op_toint/fromint: predefined handles are small integers already;
 * a user handle gets a slot in a growing table, its integer being EMPI_HANDLE_PREDEFINED_MAX plus
 * the slot, so the two ranges never collide. Slots are not reused (a freed handle's integer stays
 * unique), which keeps fromint a plain array read.
 */
#include <stdlib.h>

#include "core/global.h"
#include "datatype/handle_ints.h"

static void **slots;
static int nslots, capslots;

int empi_handle_toint(void *h)
{
    if (empi_handle_is_predefined(h))
        return (int)empi_handle_predefined_index(h);
    empi_lock();
    int found = -1;
    for (int i = nslots - 1; i >= 0 && found < 0; i--)   /* recent handles are the likely ones */
        if (slots[i] == h)
            found = i;
    if (found < 0) {
        if (nslots == capslots) {
            int cap = capslots ? capslots * 2 : 64;
            void **grown = realloc(slots, (size_t)cap * sizeof *slots);
            if (!grown) {
                empi_unlock();
                return -1;
            }
            slots = grown;
            capslots = cap;
        }
        found = nslots++;
        slots[found] = h;
    }
    empi_unlock();
    return (int)EMPI_HANDLE_PREDEFINED_MAX + found;
}

void *empi_handle_fromint(int v)
{
    if (v >= 0 && (unsigned)v < EMPI_HANDLE_PREDEFINED_MAX)
        return (void *)(uintptr_t)v;
    void *h = NULL;
    empi_lock();
    int i = v - (int)EMPI_HANDLE_PREDEFINED_MAX;
    if (i >= 0 && i < nslots)
        h = slots[i];
    empi_unlock();
    return h;
}
