/* A stand-in for a kernel object in two builds, old and new (-DNEW), for the fixtures of
 * `noisefloor size` (make_fixtures.sh): what scripts/bloat-o-meter counts and what it leaves out.
 * GCC 12 at -O2 makes the clones the kernel's builds are full of (page_order.isra.0,
 * pool_refill.constprop.0, page_pool_alloc_pages.cold) and numbers function-local statics
 * (counter.0, counter.1). */
#include <stddef.h>

struct page {
    unsigned long flags;
    int refcount;
    int order;
    void *pool;
};
struct pool {
    struct page *cache[64];
    int count;
    int nid;
    unsigned long stats[8];
};

int pool_debug;                                  /* .bss: B */
__thread unsigned long pool_tls_hits;            /* .tbss: B */
const char linux_banner[] = "Linux version x";   /* R, left out by name */
const char vermagic[] = "6.12.0 SMP mod_unload"; /* R, left out by name */
const int __mod_pool_device_table[4] = {1, 2, 3, 4};
int (*__addressable_pool_init)(void);
#ifdef NEW
unsigned long pool_stats_table[24] = {1}; /* .data: D */
static const char pool_names[][16] = {"small", "large", "huge"};
#else
unsigned long pool_stats_table[16] = {1};
static const char pool_names[][16] = {"small", "large"};
#endif

/* A function-local static in two functions: counter.0 and counter.1, one "counter" to the script. */
int pool_tick(void)
{
    static int counter;
    return ++counter;
}
int pool_tock(void)
{
#ifdef NEW
    static long counter;
#else
    static int counter;
#endif
    return (int)++counter;
}

/* Reads one field of its argument: GCC passes the field alone and names the clone .isra.0. */
static __attribute__((noinline)) int page_order(struct page *p)
{
#ifdef NEW
    return p->order > 10 ? 10 : p->order * 3 + 1;
#else
    return p->order;
#endif
}

__attribute__((cold, noinline)) void pool_warn(const char *what)
{
    (void)what;
    pool_debug++;
}

/* Always called with n = 16: pool_refill.constprop.0. */
static __attribute__((noinline)) int pool_refill(struct pool *pool, int n)
{
    int i;
    for (i = 0; i < n && pool->count < 64; i++) {
        pool->cache[pool->count++] = NULL;
    }
    return i;
}

/* The unlikely branch goes to page_pool_alloc_pages.cold. */
struct page *page_pool_alloc_pages(struct pool *pool, int gfp)
{
    if (__builtin_expect(pool->count == 0, 0)) {
        if (pool_refill(pool, 16) == 0) {
            pool_warn("empty");
            return NULL;
        }
    }
    struct page *p = pool->cache[--pool->count];
#ifdef NEW
    if (p != NULL && gfp & 1) {
        p->refcount = 1;
        p->pool = pool;
    }
#else
    (void)gfp;
#endif
    return p;
}

void page_pool_put_page(struct pool *pool, struct page *p)
{
#ifdef NEW
    pool->cache[pool->count++ & 63] = p;
#else
    if (pool->count < 64) {
        pool->cache[pool->count++] = p;
        pool->stats[page_order(p) & 7]++;
    }
#endif
}

#ifdef NEW
int page_pool_release(struct pool *pool)
{
    int freed = 0;
    while (pool->count > 0) {
        pool->cache[--pool->count] = NULL;
        freed++;
    }
    pool->stats[page_order(pool->cache[0]) & 7] += (unsigned long)freed;
    return freed;
}
#else
void page_pool_destroy(struct pool *pool)
{
    pool->count = 0;
    pool->stats[page_order(pool->cache[0]) & 7]++;
}
#endif

const char *pool_name(int i)
{
    return pool_names[i];
}

/* Weak: nm's W, which the script's default mode does not count. */
__attribute__((weak)) int pool_arch_hook(void)
{
    return 0;
}

/* An indirect function: nm's i, not counted either. */
static int pool_fast_generic(void)
{
    return 1;
}
static int (*pool_fast_resolver(void))(void)
{
    return pool_fast_generic;
}
int pool_fast(void) __attribute__((ifunc("pool_fast_resolver")));

/* Names C cannot spell: one with a ':' (a line the script skips) and one whose ".5" the script
 * cuts out ("weirdx"). */
__asm__(".section .text.pool_asm,\"ax\",@progbits\n"
        ".globl \"pool:odd\"\n"
        ".type \"pool:odd\",@function\n"
        "\"pool:odd\":\n"
#ifdef NEW
        ".byte 0xc3, 0xc3, 0xc3\n"
#else
        ".byte 0xc3\n"
#endif
        ".size \"pool:odd\", .-\"pool:odd\"\n"
        ".globl weird.5x\n"
        ".type weird.5x,@function\n"
        "weird.5x:\n"
#ifdef NEW
        ".byte 0xc3, 0xc3, 0xc3, 0xc3\n"
#else
        ".byte 0xc3\n"
#endif
        ".size weird.5x, .-weird.5x\n"
        ".previous\n");

int pool_init(void)
{
    __addressable_pool_init = pool_init;
    return pool_tick() + pool_tock() + pool_arch_hook() + __mod_pool_device_table[0];
}
