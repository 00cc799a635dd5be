/*
 * A random bot for any arena game, in C99 with no dependencies.
 *
 * It does not parse JSON into values: it scans each request for the top-level "id" and "legal"
 * members and echoes the raw text of one element of "legal", chosen at random. That is enough for
 * every game, because the referee always lists the legal actions in full. The scanner handles strings
 * with escapes and nested arrays and objects.
 *
 * Seed: the first argument, else the ARENA_SEED environment variable, else the time; mixed at each
 * game's start with the game id and the seat, so each game has its own reproducible stream.
 * Build: cc -O2 -o random_bot random_bot.c   (done by `make setup`)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;

static uint64_t next64(void) { /* SplitMix64, as arena/rng.py */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { /* uniform in [0, n) by rejection */
    uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n, x;
    do { x = next64(); } while (x > limit);
    return (size_t)(x % n);
}

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* p at the opening quote; returns the position after the closing quote, or NULL. */
static const char *skip_string(const char *p) {
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p) return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* p at the start of any JSON value; returns the position just after it, or NULL. */
static const char *skip_value(const char *p) {
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                p = skip_string(p);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
    return p;
}

/* The value of a top-level member of the object at p, or NULL. Keys are compared raw. */
static const char *find_member(const char *p, const char *key) {
    size_t klen = strlen(key);
    p = skip_ws(p);
    if (*p != '{') return NULL;
    p = skip_ws(p + 1);
    while (*p == '"') {
        const char *kstart = p + 1, *kend = skip_string(p);
        if (!kend) return NULL;
        int match = (size_t)(kend - 1 - kstart) == klen && memcmp(kstart, key, klen) == 0;
        p = skip_ws(kend);
        if (*p != ':') return NULL;
        p = skip_ws(p + 1);
        if (match) return p;
        p = skip_value(p);
        if (!p) return NULL;
        p = skip_ws(p);
        if (*p != ',') return NULL;
        p = skip_ws(p + 1);
    }
    return NULL;
}

static int is_type(const char *line, const char *type) {
    const char *v = find_member(line, "type");
    size_t n = strlen(type);
    return v && *v == '"' && strncmp(v + 1, type, n) == 0 && v[n + 1] == '"';
}

static void answer(const char *line) {
    const char *id = find_member(line, "id"), *legal = find_member(line, "legal");
    const char *id_end, *p, *chosen = NULL, *chosen_end = NULL;
    size_t count = 0, pick;
    if (!id || !legal || *legal != '[') {
        fprintf(stderr, "random_bot: a request without id or legal\n");
        return;
    }
    id_end = skip_value(id);
    /* First pass counts the elements, second finds the chosen one. */
    for (int pass = 0; pass < 2; pass++) {
        size_t i = 0;
        pick = pass ? below(count) : 0;
        p = skip_ws(legal + 1);
        while (*p && *p != ']') {
            const char *end = skip_value(p);
            if (!end) return;
            if (pass && i == pick) { chosen = p; chosen_end = end; break; }
            i++;
            p = skip_ws(end);
            if (*p == ',') p = skip_ws(p + 1);
        }
        if (!pass) count = i;
        if (!count) {
            fprintf(stderr, "random_bot: no legal action\n");
            return;
        }
    }
    fputs("{\"id\":", stdout);
    fwrite(id, 1, (size_t)(id_end - id), stdout);
    fputs(",\"action\":", stdout);
    fwrite(chosen, 1, (size_t)(chosen_end - chosen), stdout);
    fputs("}\n", stdout);
    fflush(stdout);
}

/* One line of any length into *buf; returns 0 at end of input. */
static int read_line(char **buf, size_t *cap) {
    size_t len = 0;
    if (!*buf) {
        *cap = 1 << 16;
        *buf = malloc(*cap);
        if (!*buf) return 0;
    }
    for (;;) {
        if (!fgets(*buf + len, (int)(*cap - len), stdin)) return len > 0;
        len += strlen(*buf + len);
        if (len && (*buf)[len - 1] == '\n') return 1;
        if (len + 1 >= *cap) {
            char *bigger = realloc(*buf, *cap * 2);
            if (!bigger) return 0;
            *buf = bigger;
            *cap *= 2;
        }
    }
}

/* Each game gets its own stream, from the bot's seed, the game id and the seat: a bot's moves in a
 * game then depend on nothing it played elsewhere, so a tournament's results do not depend on how
 * games were shared out between processes. */
static void reseed(const char *line, uint64_t base) {
    uint64_t h = 0xCBF29CE484222325ULL; /* FNV-1a over the game id's raw JSON text */
    const char *v = find_member(line, "game_id"), *end = v && *v == '"' ? skip_string(v) : NULL;
    for (; end && v < end; v++) h = (h ^ (unsigned char)*v) * 0x100000001B3ULL;
    v = find_member(line, "seat");
    rng_state = base ^ h ^ ((v ? strtoull(v, NULL, 10) : 0) * 0x9E3779B97F4A7C15ULL);
}

int main(int argc, char **argv) {
    const char *seed = argc > 1 ? argv[1] : getenv("ARENA_SEED");
    char *line = NULL;
    size_t cap = 0;
    uint64_t base = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)clock();
    rng_state = base;
    while (read_line(&line, &cap)) {
        if (is_type(line, "request")) {
            answer(line);
        } else if (is_type(line, "start")) {
            reseed(line, base);
        } else if (is_type(line, "hello")) {
            fputs("{\"type\":\"hello\",\"protocol\":1,\"name\":\"random-c\",\"version\":\"1.0\"}\n", stdout);
            fflush(stdout);
        } else if (is_type(line, "shutdown")) {
            break;
        } /* start, end and unknown messages need no answer */
    }
    free(line);
    return 0;
}
