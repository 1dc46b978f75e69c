/* Handle <-> int registry: predefined handles are their own value, user handles round-trip. */
#include "comm/comm.h"
#include "unit_core.h"

int main(void)
{
    EXPECT(PMPI_Group_toint(MPI_GROUP_EMPTY) == 0x109);
    EXPECT(PMPI_Group_fromint(0x109) == MPI_GROUP_EMPTY);
    static int objects[5000];
    for (int i = 0; i < 5000; i++) {
        int n = empi_handle_toint(&objects[i]);
        EXPECT(n >= (int)EMPI_HANDLE_PREDEFINED_MAX);
        EXPECT(empi_handle_fromint(n) == &objects[i]);
        EXPECT(empi_handle_toint(&objects[i]) == n);
    }
    EXPECT(empi_handle_toint(&objects[0]) != empi_handle_toint(&objects[1]));
    EXPECT(empi_handle_fromint(0x7fffffff) == NULL);
    MPI_Info info;
    EXPECT_OK(PMPI_Info_create(&info));
    EXPECT(PMPI_Info_fromint(PMPI_Info_toint(info)) == info);
    puts("handle_test OK");
    return 0;
}
