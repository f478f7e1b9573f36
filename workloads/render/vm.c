#include "workloads/render/vm.h"

#include <stdlib.h>

static const struct {
    const char *name;
    int commutes;
} op_info[VM_OP_COUNT] = {
    [VM_VAR_X] = {"var-x", 0},   [VM_VAR_Y] = {"var-y", 0}, [VM_CONST] = {"const", 0},
    [VM_ADD] = {"add", 1},       [VM_SUB] = {"sub", 0},     [VM_MUL] = {"mul", 1},
    [VM_MAX] = {"max", 0},       [VM_MIN] = {"min", 0},     [VM_NEG] = {"neg", 0},
    [VM_SQUARE] = {"square", 0}, [VM_SQRT] = {"sqrt", 0},
};

const char *vm_op_name(enum vm_op op)
{
    return (unsigned)op < VM_OP_COUNT ? op_info[op].name : "?";
}

int vm_op_commutes(enum vm_op op)
{
    return (unsigned)op < VM_OP_COUNT ? op_info[op].commutes : 0;
}

void vm_prog_free(struct vm_prog *p)
{
    free(p->insns);
    p->insns = NULL;
    p->n = 0;
}
