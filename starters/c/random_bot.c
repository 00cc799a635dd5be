/* A random bot for every arena game: each request lists every legal action; it picks one. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "arena.h"

static uint64_t state;

static uint64_t next64(void) { /* SplitMix64 */
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int decide(const char *request, char *out, size_t cap, void *user) {
    arena_json legal = arena_member(request, "legal");
    long n = arena_length(legal);
    (void)user;
    if (n <= 0) return -1;
    return arena_copy(arena_item(legal, (long)(next64() % (uint64_t)n)), out, cap);
}

static void on_start(const char *message, void *user) {
    arena_json game = arena_member(message, "game"), seat = arena_member(message, "seat");
    (void)user;
    arena_log("random-c: a game of %.*s in seat %.*s", (int)game.len, game.text, (int)seat.len, seat.text);
}

int main(void) {
    const char *seed = getenv("ARENA_SEED");
    state = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)clock();
    return arena_run("random-c", "1.0", decide, on_start, NULL, NULL) == 0 ? 0 : 1;
}
