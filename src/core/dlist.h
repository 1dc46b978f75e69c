/* Intrusive doubly linked lists kept as a head and a tail pointer: the node's own link fields are
 * named by `prev` and `next`, so one node can sit in several lists (an unexpected message is in
 * its queue and in its source's bin). Arguments are evaluated more than once: pass plain lvalues. */
#ifndef EMPI_CORE_DLIST_H
#define EMPI_CORE_DLIST_H

#define EMPI_DLIST_APPEND(head, tail, node, prev, next) \
    do {                                                \
        (node)->next = NULL;                            \
        (node)->prev = (tail);                          \
        if (tail)                                       \
            (tail)->next = (node);                      \
        else                                            \
            (head) = (node);                            \
        (tail) = (node);                                \
    } while (0)

#define EMPI_DLIST_UNLINK(head, tail, node, prev, next) \
    do {                                                \
        if ((node)->prev)                               \
            (node)->prev->next = (node)->next;          \
        else                                            \
            (head) = (node)->next;                      \
        if ((node)->next)                               \
            (node)->next->prev = (node)->prev;          \
        else                                            \
            (tail) = (node)->prev;                      \
        (node)->next = (node)->prev = NULL;             \
    } while (0)

#endif
