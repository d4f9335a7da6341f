/* list.h - intrusive circular doubly linked lists, with Linux's names. */
#ifndef LIST_H
#define LIST_H

#include "types.h"

struct list_head {
	struct list_head *next, *prev;
};

/* clang-format off */
#define LIST_HEAD_INIT(name) { &(name), &(name) }
/* clang-format on */

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l->prev = l;
}

static inline void list_add_between(struct list_head *n, struct list_head *prev,
				    struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	list_add_between(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	list_add_between(n, head->prev, head);
}

static inline void list_del_init(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	INIT_LIST_HEAD(e);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

/* Take e off its list and put it first on head's (Linux: list_move). */
static inline void list_move(struct list_head *e, struct list_head *head)
{
	list_del_init(e);
	list_add(e, head);
}

#define list_entry(ptr, type, member)	     container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_last_entry(head, type, member)  list_entry((head)->prev, type, member)

/* The loops; the _safe one keeps the next entry in n, so pos may be deleted. */
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head)                                                           \
	for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)

#endif
