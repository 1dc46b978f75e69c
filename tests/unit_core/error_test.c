/* Error-code encoding, messages, user classes and codes, and handler dispatch. */
#include <string.h>

#include "comm/comm.h"
#include "core/attr.h"
#include "core/error.h"
#include "unit_core.h"

static int user_calls, last_code;
static void user_handler(MPI_Comm *comm, int *code, ...)
{
    EXPECT(*comm == MPI_COMM_SELF);
    user_calls++;
    last_code = *code;
}

int main(void)
{
    char text[MPI_MAX_ERROR_STRING];
    int len, cls;

    /* a raised error: class in the low bits, its message kept */
    int code = empi_err_noobj(MPI_ERR_TAG, "MPI_Send: tag %d is negative", -4);
    EXPECT(code > MPI_ERR_ABI && code <= MPI_ERR_LASTCODE);
    EXPECT_OK(PMPI_Error_class(code, &cls));
    EXPECT(cls == MPI_ERR_TAG);
    EXPECT_OK(PMPI_Error_string(code, text, &len));
    EXPECT(strcmp(text, "MPI_Send: tag -4 is negative") == 0 && len == (int)strlen(text));

    /* classes are their own codes and have a text */
    EXPECT_OK(PMPI_Error_class(MPI_ERR_RANK, &cls));
    EXPECT(cls == MPI_ERR_RANK);
    EXPECT_OK(PMPI_Error_string(MPI_SUCCESS, text, &len));
    EXPECT(strncmp(text, "MPI_SUCCESS", 11) == 0);
    EXPECT_OK(PMPI_Error_string(MPI_ERR_ABI, text, &len));
    EXPECT(strncmp(text, "MPI_ERR_ABI", 11) == 0);
    /* and so are the tool interface's */
    EXPECT_OK(PMPI_Error_class(MPI_T_ERR_INVALID_NAME, &cls));
    EXPECT(cls == MPI_T_ERR_INVALID_NAME);
    EXPECT_OK(PMPI_Error_class(MPI_T_ERR_PVAR_NO_ATOMIC, &cls));
    EXPECT(cls == MPI_T_ERR_PVAR_NO_ATOMIC);

    /* many errors: every fresh code keeps its class and never lands on an MPI_T code */
    for (int i = 0; i < 1000; i++) {
        int c = empi_err_noobj(i % 60 + 1, "error %d", i);
        EXPECT(empi_error_class_of(c) == i % 60 + 1);
        EXPECT(c < MPI_T_ERR_CANNOT_INIT || c > MPI_T_ERR_PVAR_NO_ATOMIC);
    }
    EXPECT_CLASS(PMPI_Error_class(-5, &cls), MPI_ERR_ARG);
    EXPECT_CLASS(PMPI_Error_class(MPI_ERR_LASTCODE + 77, &cls), MPI_ERR_ARG);

    /* user classes and codes */
    int uclass, ucode, ucode2;
    EXPECT_OK(PMPI_Add_error_class(&uclass));
    EXPECT(uclass > MPI_ERR_LASTCODE);
    EXPECT_OK(PMPI_Add_error_code(uclass, &ucode));
    EXPECT_OK(PMPI_Add_error_code(MPI_ERR_IO, &ucode2));
    EXPECT(empi_error_class_of(ucode) == uclass && empi_error_class_of(ucode2) == MPI_ERR_IO);
    EXPECT(empi_error_last_used_code >= ucode2);
    EXPECT_OK(PMPI_Add_error_string(ucode, "disk on fire"));
    EXPECT_OK(PMPI_Error_string(ucode, text, &len));
    EXPECT(strcmp(text, "disk on fire") == 0);
    EXPECT_CLASS(PMPI_Add_error_string(MPI_ERR_ARG, "nope"), MPI_ERR_ARG);
    EXPECT_CLASS(PMPI_Add_error_code(ucode, &ucode2), MPI_ERR_ARG);       /* a code is not a class */
    EXPECT_CLASS(PMPI_Remove_error_class(uclass), MPI_ERR_ARG);           /* still has a code */
    EXPECT_CLASS(PMPI_Remove_error_code(ucode), MPI_ERR_ARG);             /* still has a string */
    EXPECT_OK(PMPI_Remove_error_string(ucode));
    EXPECT_OK(PMPI_Error_string(ucode, text, &len));
    EXPECT(len == 0);
    EXPECT_OK(PMPI_Remove_error_code(ucode));
    EXPECT_OK(PMPI_Remove_error_class(uclass));
    EXPECT_CLASS(PMPI_Error_class(ucode, &cls), MPI_ERR_ARG);

    /* a user handler sees the code; MPI_Comm_call_errhandler reaches it too */
    MPI_Errhandler eh;
    EXPECT_OK(PMPI_Comm_create_errhandler(user_handler, &eh));
    EXPECT_OK(PMPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    int raised = empi_err_noobj(MPI_ERR_COUNT, "MPI_Recv: count -1 is negative");
    EXPECT(user_calls == 1 && last_code == raised);
    EXPECT_OK(PMPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER));
    EXPECT(user_calls == 2 && last_code == MPI_ERR_OTHER);
    MPI_Errhandler got;
    EXPECT_OK(PMPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
    EXPECT(got == eh);
    EXPECT_OK(PMPI_Errhandler_free(&got));
    EXPECT_OK(PMPI_Errhandler_free(&eh));
    EXPECT(eh == MPI_ERRHANDLER_NULL);
    /* still attached, so still alive */
    empi_err_noobj(MPI_ERR_COUNT, "again");
    EXPECT(user_calls == 3);
    EXPECT_OK(PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* a window handler cannot go on a communicator */
    MPI_Errhandler weh;
    EXPECT_OK(PMPI_Win_create_errhandler((MPI_Win_errhandler_function *)user_handler, &weh));
    EXPECT_CLASS(PMPI_Comm_set_errhandler(MPI_COMM_SELF, weh), MPI_ERR_ARG);
    EXPECT_CLASS(PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRHANDLER_NULL), MPI_ERR_ERRHANDLER);
    EXPECT_OK(PMPI_Errhandler_free(&weh));
    EXPECT(PMPI_Errhandler_fromint(PMPI_Errhandler_toint(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN);
    puts("error_test OK");
    return 0;
}
