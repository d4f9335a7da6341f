/* test_rbtree.c - host tests of lib/rbtree.c. Every operation is mirrored in a sorted
 * reference array (stable: an equal key goes after its equals, as the tree promises),
 * and after each one the whole tree is checked: red-black invariants, parent links,
 * key order, the leftmost cache, and rb_first_cached/rb_next walking exactly the
 * reference sequence. A deterministic PRNG keeps failures reproducible. */
#include "ktest.h"
#include "rbtree.h"

#define MAX_ITEMS 512

struct item {
	struct rb_node rb;
	u32 key;
	bool in_tree;
};

static bool item_less(const struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct item, rb)->key < rb_entry(b, struct item, rb)->key;
}

struct harness {
	struct rb_root_cached root;
	struct item items[MAX_ITEMS];
	struct item *ref[MAX_ITEMS]; /* the tree's contents, in expected in-order */
	int n;
	u32 rng;
};

static u32 next_rand(struct harness *h) /* xorshift32 */
{
	h->rng ^= h->rng << 13;
	h->rng ^= h->rng >> 17;
	h->rng ^= h->rng << 5;
	return h->rng;
}

static void h_init(struct harness *h, u32 seed)
{
	*h = (struct harness){ .root = RB_ROOT_CACHED, .rng = seed };
}

static void h_insert(struct harness *h, struct item *it)
{
	int i = h->n;

	/* stable insertion: after every key <= it->key */
	while (i > 0 && h->ref[i - 1]->key > it->key) {
		h->ref[i] = h->ref[i - 1];
		i--;
	}
	h->ref[i] = it;
	h->n++;
	it->in_tree = true;
	rb_insert_cached(&h->root, &it->rb, item_less);
}

static void h_erase(struct harness *h, int idx)
{
	struct item *it = h->ref[idx];

	for (int i = idx; i < h->n - 1; i++)
		h->ref[i] = h->ref[i + 1];
	h->n--;
	it->in_tree = false;
	rb_erase_cached(&h->root, &it->rb);
}

/* Black height of the subtree at n (NULL leaves count 1), or -1 on any violation,
 * reported through t. Also counts the nodes and the height. */
static int check_subtree(struct ktest *t, const struct rb_node *n, const struct rb_node *parent,
			 int *count, int depth, int *height)
{
	if (!n) {
		if (depth > *height)
			*height = depth;
		return 1;
	}
	(*count)++;
	KTEST__CHECK(t, n->parent == parent, return -1, "bad parent link at key %u",
		     rb_entry(n, struct item, rb)->key);
	KTEST__CHECK(t, n->color == RB_RED || n->color == RB_BLACK, return -1, "bad colour");
	KTEST__CHECK(t, !(n->color == RB_RED && parent && parent->color == RB_RED), return -1,
		     "red-red at key %u", rb_entry(n, struct item, rb)->key);
	int lh = check_subtree(t, n->left, n, count, depth + 1, height);
	int rh = check_subtree(t, n->right, n, count, depth + 1, height);
	if (lh < 0 || rh < 0)
		return -1;
	KTEST__CHECK(t, lh == rh, return -1, "black heights %d != %d at key %u", lh, rh,
		     rb_entry(n, struct item, rb)->key);
	return lh + (n->color == RB_BLACK);
}

/* Whole-tree check; returns false (after reporting) on the first problem. */
static bool check_tree(struct ktest *t, struct harness *h)
{
	const struct rb_node *root = h->root.rb_root.rb_node;
	int count = 0, height = 0, log2 = 0, i = 0;

	KTEST__CHECK(t, rb_empty(&h->root) == (h->n == 0), return false, "rb_empty wrong");
	KTEST__CHECK(t, !root || (root->color == RB_BLACK && !root->parent), return false,
		     "root not black or has a parent");
	if (check_subtree(t, root, NULL, &count, 0, &height) < 0)
		return false;
	KTEST__CHECK(t, count == h->n, return false, "%d nodes, expected %d", count, h->n);
	while ((2 << log2) <= h->n + 1)
		log2++;
	KTEST__CHECK(t, height <= 2 * (log2 + 1), return false, "height %d for %d nodes", height,
		     h->n);
	KTEST__CHECK(t, rb_first_cached(&h->root) == (h->n ? &h->ref[0]->rb : NULL), return false,
		     "leftmost cache is not the minimum");
	/* in-order walk == reference: sorted, and FIFO among equal keys */
	for (struct rb_node *n = rb_first_cached(&h->root); n; n = rb_next(n), i++)
		KTEST__CHECK(t, i < h->n && n == &h->ref[i]->rb, return false,
			     "in-order position %d differs from the reference", i);
	KTEST__CHECK(t, i == h->n, return false, "walk stopped at %d of %d", i, h->n);
	return true;
}

static void empty_tree(struct ktest *t)
{
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct item a = { .key = 7 };

	EXPECT_TRUE(t, rb_empty(&root));
	EXPECT_TRUE(t, rb_first_cached(&root) == NULL);
	rb_insert_cached(&root, &a.rb, item_less);
	EXPECT_FALSE(t, rb_empty(&root));
	EXPECT_TRUE(t, rb_first_cached(&root) == &a.rb);
	EXPECT_TRUE(t, rb_next(&a.rb) == NULL);
	EXPECT_EQ(t, a.rb.color, RB_BLACK);
	rb_erase_cached(&root, &a.rb);
	EXPECT_TRUE(t, rb_empty(&root));
	EXPECT_TRUE(t, rb_first_cached(&root) == NULL);
}

/* Ascending and descending runs are the rotation-heavy worst cases of a plain BST. */
static void sequential(struct ktest *t)
{
	static struct harness h;

	for (int dir = 0; dir < 2; dir++) {
		h_init(&h, 1);
		for (int i = 0; i < MAX_ITEMS; i++) {
			h.items[i].key = dir ? MAX_ITEMS - i : i;
			h_insert(&h, &h.items[i]);
			ASSERT_TRUE(t, check_tree(t, &h));
		}
		while (h.n) { /* drain from the middle, then alternate ends */
			h_erase(&h, h.n % 3 == 0 ? h.n / 2 : (h.n % 3 == 1 ? 0 : h.n - 1));
			ASSERT_TRUE(t, check_tree(t, &h));
		}
	}
}

/* Equal keys leave in insertion order: what CFS needs among equal vruntimes. */
static void duplicates_fifo(struct ktest *t)
{
	static struct harness h;

	h_init(&h, 2);
	for (int i = 0; i < 64; i++) {
		h.items[i].key = i % 3 == 0 ? 5 : 10 + i % 4;
		h_insert(&h, &h.items[i]);
		ASSERT_TRUE(t, check_tree(t, &h));
	}
	/* the key-5 items are items 0, 3, 6, ...: popped first, in that order */
	for (int i = 0; i < 64; i += 3) {
		ASSERT_TRUE(t, rb_first_cached(&h.root) == &h.items[i].rb);
		h_erase(&h, 0);
		ASSERT_TRUE(t, check_tree(t, &h));
	}
	EXPECT_EQ(t, rb_entry(rb_first_cached(&h.root), struct item, rb)->key, 10);
}

/* Random inserts and erases of random nodes; key_range small forces many duplicates. */
static void random_ops(struct ktest *t, u32 seed, u32 key_range, int ops)
{
	static struct harness h;
	int free_list[MAX_ITEMS], nfree = MAX_ITEMS;

	h_init(&h, seed);
	for (int i = 0; i < MAX_ITEMS; i++)
		free_list[i] = i;
	for (int op = 0; op < ops; op++) {
		/* bias towards growth for the first half, then towards shrinking */
		u32 grow = op < ops / 2 ? 3 : 1;
		if (nfree && (h.n == 0 || next_rand(&h) % 4 < grow)) {
			int k = next_rand(&h) % nfree;
			struct item *it = &h.items[free_list[k]];

			free_list[k] = free_list[--nfree];
			it->key = next_rand(&h) % key_range;
			h_insert(&h, it);
		} else {
			int idx = next_rand(&h) % h.n;

			free_list[nfree++] = h.ref[idx] - h.items;
			h_erase(&h, idx);
		}
		ASSERT_TRUE(t, check_tree(t, &h));
	}
}

static void random_wide_keys(struct ktest *t)
{
	random_ops(t, 0x12345678, 1u << 30, 6000);
}

static void random_many_duplicates(struct ktest *t)
{
	random_ops(t, 0xdeadbeef, 16, 6000);
}

/* The CFS pattern: pick the leftmost, erase it, reinsert it further right. */
static void cfs_pick_and_requeue(struct ktest *t)
{
	static struct harness h;

	h_init(&h, 3);
	for (int i = 0; i < 100; i++) {
		h.items[i].key = next_rand(&h) % 1000;
		h_insert(&h, &h.items[i]);
	}
	ASSERT_TRUE(t, check_tree(t, &h));
	for (int step = 0; step < 3000; step++) {
		struct item *it = rb_entry(rb_first_cached(&h.root), struct item, rb);

		ASSERT_TRUE(t, it == h.ref[0]);
		h_erase(&h, 0);
		it->key += 1 + next_rand(&h) % 300; /* ran for a while: vruntime grew */
		h_insert(&h, it);
		ASSERT_TRUE(t, check_tree(t, &h));
	}
}

/* Augmented: each item also carries a second value (EEVDF's vruntime beside the deadline
 * key) and the tree keeps the least of it per subtree; after every insert and erase,
 * with rotations of both kinds, each node's cached value must be the brute-force
 * minimum over its subtree. */
struct aitem {
	struct rb_node rb;
	u32 key, val, min_val;
	bool in_tree;
};

static bool aitem_less(const struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct aitem, rb)->key < rb_entry(b, struct aitem, rb)->key;
}

static void aitem_aug(struct rb_node *n)
{
	struct aitem *it = rb_entry(n, struct aitem, rb);

	it->min_val = it->val;
	if (n->left && rb_entry(n->left, struct aitem, rb)->min_val < it->min_val)
		it->min_val = rb_entry(n->left, struct aitem, rb)->min_val;
	if (n->right && rb_entry(n->right, struct aitem, rb)->min_val < it->min_val)
		it->min_val = rb_entry(n->right, struct aitem, rb)->min_val;
}

static u32 subtree_min(const struct rb_node *n)
{
	u32 m = ~0u, c;

	if (!n)
		return m;
	m = rb_entry(n, struct aitem, rb)->val;
	c = subtree_min(n->left);
	m = c < m ? c : m;
	c = subtree_min(n->right);
	return c < m ? c : m;
}

static bool aug_ok(const struct rb_node *n)
{
	if (!n)
		return true;
	return rb_entry(n, struct aitem, rb)->min_val == subtree_min(n) && aug_ok(n->left) &&
	       aug_ok(n->right);
}

static void augmented_min(struct ktest *t)
{
	static struct aitem items[256];
	struct rb_root_cached root = RB_ROOT_CACHED;
	u32 rng = 77;

	for (int op = 0; op < 5000; op++) {
		struct aitem *it;

		rng ^= rng << 13;
		rng ^= rng >> 17;
		rng ^= rng << 5;
		it = &items[rng % 256];
		if (it->in_tree) {
			rb_erase_augmented_cached(&root, &it->rb, aitem_aug);
			it->in_tree = false;
		} else {
			it->key = (rng >> 8) % 1000;
			it->val = (rng >> 16) % 5000;
			rb_insert_augmented_cached(&root, &it->rb, aitem_less, aitem_aug);
			it->in_tree = true;
		}
		ASSERT_TRUE(t, aug_ok(root.rb_root.rb_node));
	}
}

KTEST_SUITE(rbtree, KTEST_CASE(empty_tree), KTEST_CASE(sequential), KTEST_CASE(duplicates_fifo),
	    KTEST_CASE(random_wide_keys), KTEST_CASE(random_many_duplicates),
	    KTEST_CASE(cfs_pick_and_requeue), KTEST_CASE(augmented_min));
