/* rbtree.h - intrusive red-black trees with the leftmost node cached, for the CFS
 * run queue (Linux: struct rb_root_cached). Pure code, no allocation and no lock:
 * the owner of the tree serialises (CFS: rq->lock). lib/rbtree.c holds the rebalancing;
 * the descent is inline here so the caller's less() is inlined into it.
 * Duplicate keys are allowed: an equal key goes to the right, so equals leave in FIFO order. */
#ifndef RBTREE_H
#define RBTREE_H

#include "types.h"

#define RB_RED	 0
#define RB_BLACK 1

/* Colour in its own word rather than packed into the low bit of parent (as Linux
 * does): 8 more bytes per sched_entity buys a node that a debugger prints plainly
 * and no alignment assumption on the structures that embed it. */
struct rb_node {
	struct rb_node *parent, *left, *right;
	int color;
};

struct rb_root {
	struct rb_node *rb_node;
};

/* rb_leftmost is the minimum, NULL iff the tree is empty: CFS's pick is O(1). */
struct rb_root_cached {
	struct rb_root rb_root;
	struct rb_node *rb_leftmost;
};

#define RB_ROOT_CACHED		    ((struct rb_root_cached){ { NULL }, NULL })
#define rb_entry(ptr, type, member) container_of(ptr, type, member)

static inline bool rb_empty(const struct rb_root_cached *root)
{
	return root->rb_root.rb_node == NULL;
}

/* The minimum, or NULL if empty. Linux: rb_first_cached(). */
static inline struct rb_node *rb_first_cached(const struct rb_root_cached *root)
{
	return root->rb_leftmost;
}

/* In-order successor of a node in a tree, or NULL after the last. */
struct rb_node *rb_next(const struct rb_node *node);

/* Recolour and rotate after `node` was linked as a red leaf; `leftmost` says the
 * descent never went right, i.e. node is the new minimum. Linux: rb_insert_color_cached(). */
void rb_insert_color_cached(struct rb_root_cached *root, struct rb_node *node, bool leftmost);

/* Unlink node (which must be in this tree) and rebalance. The node's fields are left
 * stale. Linux: rb_erase_cached(node, root), the arguments the other way round. */
void rb_erase_cached(struct rb_root_cached *root, struct rb_node *node);

/* Augmented trees (Linux: rb_add_augmented_cached / rb_erase_augmented_cached, with one
 * callback instead of three): each node caches a value computed from itself and its two
 * children (EEVDF: the least vruntime of its subtree). aug(n) recomputes n's from its
 * children's; the tree calls it bottom-up on the path an insert or erase changed and on
 * both nodes of every rotation, so every node's value holds after each call. */
typedef void (*rb_augment_fn)(struct rb_node *node);
void rb_insert_color_augmented(struct rb_root_cached *root, struct rb_node *node, bool leftmost,
			       rb_augment_fn aug);
void rb_erase_augmented_cached(struct rb_root_cached *root, struct rb_node *node,
			       rb_augment_fn aug);

/* The descent both inserts share: link node under its place by less(); true if it is
 * the new leftmost. Red, as every new node, until the recolouring. */
static inline bool __rb_link_cached(struct rb_root_cached *root, struct rb_node *node,
				    bool (*less)(const struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &root->rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (less(node, parent)) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	node->parent = parent;
	node->left = node->right = NULL;
	node->color = RB_RED;
	*link = node;
	return leftmost;
}

/* Insert node in O(log n); less(a, b) orders the keys (strict weak order). Equal keys
 * descend right, so node goes after every equal key already there. Linux:
 * rb_add_cached(node, tree, less), the arguments in another order. */
static inline void rb_insert_cached(struct rb_root_cached *root, struct rb_node *node,
				    bool (*less)(const struct rb_node *, const struct rb_node *))
{
	rb_insert_color_cached(root, node, __rb_link_cached(root, node, less));
}

/* rb_insert_cached() for an augmented tree. */
static inline void rb_insert_augmented_cached(struct rb_root_cached *root, struct rb_node *node,
					      bool (*less)(const struct rb_node *,
							   const struct rb_node *),
					      rb_augment_fn aug)
{
	rb_insert_color_augmented(root, node, __rb_link_cached(root, node, less), aug);
}

#endif
