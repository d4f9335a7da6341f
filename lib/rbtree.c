/* rbtree.c - red-black tree rebalancing after insert and erase, and in-order successor.
 * Written from CLRS ch. 13 (Introduction to Algorithms, 3rd ed.) with NULL leaves
 * instead of a sentinel, so erase carries the parent of the "doubly black" hole itself.
 * Not the descent (inline in rbtree.h, where less() can be inlined). No locks: the
 * tree's owner serialises. Freestanding and pure, so host tests run this very code.
 *
 * Invariants kept (a NULL leaf counts as black):
 *   1. the root is black;  2. a red node has no red child;
 *   3. every root-to-NULL path crosses the same number of black nodes.
 * Hence height <= 2 log2(n + 1). */
#include "rbtree.h"

static inline bool is_red(const struct rb_node *n)
{
	return n && n->color == RB_RED;
}

/* Augmented trees: recompute n and each ancestor up to the root, bottom-up. Linux stops
 * once a value does not change; the whole path is O(log n) anyway. */
static void propagate(struct rb_node *n, rb_augment_fn aug)
{
	if (!aug)
		return;
	for (; n; n = n->parent)
		aug(n);
}

/* Make `new` take old's place under old's parent (or as the root). */
static void replace_child(struct rb_root *root, struct rb_node *old, struct rb_node *new,
			  struct rb_node *parent)
{
	if (!parent)
		root->rb_node = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
	if (new)
		new->parent = parent;
}

/*
 *     x                y
 *    / \     left     / \
 *   a   y   ----->   x   c      Keeps the in-order sequence a x b y c;
 *      / \          / \         right rotation is the mirror image.
 *     b   c        a   b
 */
static void rotate_left(struct rb_root *root, struct rb_node *x, rb_augment_fn aug)
{
	struct rb_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	replace_child(root, x, y, x->parent);
	y->left = x;
	x->parent = y;
	if (aug) { /* x's subtree shrank, y's is x's old one: recompute bottom-up */
		aug(x);
		aug(y);
	}
}

static void rotate_right(struct rb_root *root, struct rb_node *x, rb_augment_fn aug)
{
	struct rb_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	replace_child(root, x, y, x->parent);
	y->right = x;
	x->parent = y;
	if (aug) {
		aug(x);
		aug(y);
	}
}

/* A fresh red leaf n can only break invariant 2 (its parent p is red) or 1 (it is the
 * root). The grandparent g exists and is black, since p is red and thus not the root.
 * Comments for p a left child; the other side is the mirror. */
static void insert_color(struct rb_root_cached *root, struct rb_node *n, bool leftmost,
			 rb_augment_fn aug)
{
	struct rb_root *r = &root->rb_root;
	struct rb_node *p, *g, *u;

	if (leftmost)
		root->rb_leftmost = n;
	while ((p = n->parent) && p->color == RB_RED) {
		g = p->parent;
		if (p == g->left) {
			u = g->right;
			if (is_red(u)) {
				/* Case 1, red uncle: push g's black down to p and u;
				 * black heights hold, but g may now be red under red. */
				p->color = u->color = RB_BLACK;
				g->color = RB_RED;
				n = g;
				continue;
			}
			if (n == p->right) {
				/* Case 2, n an inner child: rotate it outward into case 3. */
				rotate_left(r, p, aug);
				n = p;
				p = n->parent;
			}
			/* Case 3, n an outer child: rotate g down to the black uncle's side
			 * and swap the colours of p and g. p is black: done. */
			p->color = RB_BLACK;
			g->color = RB_RED;
			rotate_right(r, g, aug);
		} else {
			u = g->left;
			if (is_red(u)) {
				p->color = u->color = RB_BLACK;
				g->color = RB_RED;
				n = g;
				continue;
			}
			if (n == p->left) {
				rotate_right(r, p, aug);
				n = p;
				p = n->parent;
			}
			p->color = RB_BLACK;
			g->color = RB_RED;
			rotate_left(r, g, aug);
		}
	}
	r->rb_node->color = RB_BLACK; /* case 1 may have reddened the root */
}

/* Removing a black node left the subtree at x (maybe NULL) under `parent` one black
 * short. A red x absorbs the debt by turning black; otherwise look at the sibling w,
 * which is non-NULL since its side has black height >= 1 more than x's.
 * Comments for x a left child; the other side is the mirror. */
static void erase_fixup(struct rb_root *r, struct rb_node *x, struct rb_node *parent,
			rb_augment_fn aug)
{
	struct rb_node *w;

	while (x != r->rb_node && !is_red(x)) {
		if (x == parent->left) {
			w = parent->right;
			if (is_red(w)) {
				/* Case 1, red sibling: rotate it above parent, turning the
				 * (black) nephew into x's sibling; go on with cases 2-4. */
				w->color = RB_BLACK;
				parent->color = RB_RED;
				rotate_left(r, parent, aug);
				w = parent->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				/* Case 2, black sibling with black children: take one black
				 * off w's side too, and move the debt up to parent. */
				w->color = RB_RED;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->right)) {
				/* Case 3, only the inner nephew red: rotate it above w so
				 * the outer nephew is red, case 4. */
				w->left->color = RB_BLACK;
				w->color = RB_RED;
				rotate_right(r, w, aug);
				w = parent->right;
			}
			/* Case 4, outer nephew red: rotate parent down to x's side, where
			 * it adds the missing black; the nephew, now black, keeps w's side
			 * level. Balanced: stop. */
			w->color = parent->color;
			parent->color = RB_BLACK;
			w->right->color = RB_BLACK;
			rotate_left(r, parent, aug);
			x = r->rb_node;
		} else {
			w = parent->left;
			if (is_red(w)) {
				w->color = RB_BLACK;
				parent->color = RB_RED;
				rotate_right(r, parent, aug);
				w = parent->left;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->color = RB_RED;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->left)) {
				w->right->color = RB_BLACK;
				w->color = RB_RED;
				rotate_left(r, w, aug);
				w = parent->left;
			}
			w->color = parent->color;
			parent->color = RB_BLACK;
			w->left->color = RB_BLACK;
			rotate_right(r, parent, aug);
			x = r->rb_node;
		}
	}
	if (x)
		x->color = RB_BLACK;
}

/* CLRS RB-DELETE: the node actually spliced out of its position is z itself when it
 * has at most one child, else z's successor y (leftmost of z's right subtree, no left
 * child), which then takes z's place and colour. Either way the colour that vanished is
 * the spliced node's, and x is what moved into the hole. */
static void erase(struct rb_root_cached *root, struct rb_node *z, rb_augment_fn aug)
{
	struct rb_root *r = &root->rb_root;
	struct rb_node *x, *parent, *y;
	int removed;

	if (root->rb_leftmost == z)
		root->rb_leftmost = rb_next(z);
	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		parent = z->parent;
		removed = z->color;
		replace_child(r, z, x, parent);
	} else {
		for (y = z->right; y->left; y = y->left)
			;
		removed = y->color;
		x = y->right;
		if (y->parent == z) {
			parent = y; /* x stays y's right child */
		} else {
			parent = y->parent;
			replace_child(r, y, x, parent);
			y->right = z->right;
			y->right->parent = y;
		}
		y->left = z->left;
		y->left->parent = y;
		replace_child(r, z, y, z->parent);
		y->color = z->color;
	}
	propagate(parent, aug); /* the hole's ancestors lost z (and y moved up) */
	if (removed == RB_BLACK)
		erase_fixup(r, x, parent, aug);
}

void rb_insert_color_cached(struct rb_root_cached *root, struct rb_node *node, bool leftmost)
{
	insert_color(root, node, leftmost, NULL);
}

void rb_insert_color_augmented(struct rb_root_cached *root, struct rb_node *node, bool leftmost,
			       rb_augment_fn aug)
{
	propagate(node, aug); /* every ancestor gained node */
	insert_color(root, node, leftmost, aug);
}

void rb_erase_cached(struct rb_root_cached *root, struct rb_node *node)
{
	erase(root, node, NULL);
}

void rb_erase_augmented_cached(struct rb_root_cached *root, struct rb_node *node, rb_augment_fn aug)
{
	erase(root, node, aug);
}

/* The successor is the leftmost of the right subtree if there is one, else the first
 * ancestor reached from a left child. */
struct rb_node *rb_next(const struct rb_node *node)
{
	const struct rb_node *p;

	if (node->right) {
		for (node = node->right; node->left; node = node->left)
			;
		return (struct rb_node *)node;
	}
	while ((p = node->parent) && node == p->right)
		node = p;
	return (struct rb_node *)p;
}
